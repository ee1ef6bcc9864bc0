import { describe, expect, it } from 'vitest';
import { html, jsonScript, raw } from '../../src/web/html.js';

describe('the pages\' template layer', () => {
  it('escapes every interpolated value unless it is markup built by the layer', () => {
    const name = '<script>alert("x")</script> & \'q\'';
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;</p>',
    );
    expect(html`<ul>${['a<', 'b'].map((x) => html`<li>${x}</li>`)}</ul>`.text).toBe('<ul><li>a&lt;</li><li>b</li></ul>');
    expect(html`${null}${undefined}${false}${0}${raw('<br>')}`.text).toBe('0<br>');
  });

  it('keeps embedded JSON from closing its script element', () => {
    const out = jsonScript('d', { t: '</script><script>alert(1)</script>', s: '\u2028' }).text;
    expect(out).not.toContain('</script><script>');
    expect(out.match(/<\/script>/g)).toHaveLength(1);
    const inner = out.slice(out.indexOf('>') + 1, out.lastIndexOf('</script>'));
    expect(JSON.parse(inner)).toEqual({ t: '</script><script>alert(1)</script>', s: '\u2028' });
  });
});
