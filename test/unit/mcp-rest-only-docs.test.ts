import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOL_SPECS } from '../../src/mcp/tool-table.js';
import { SNAPSHOT_PATH } from '../../scripts/openapi-document.js';

describe('docs/mcp.md', () => {
  it('lists every contract route no MCP tool adapts (the README points there for them)', () => {
    const doc = JSON.parse(readFileSync(SNAPSHOT_PATH, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const adapted = new Set(TOOL_SPECS.flatMap((t) => t.routes.map((r) => r.route.replace(/:([A-Za-z0-9_]+)/g, '{$1}'))));
    const restOnly = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ path, key: `${method.toUpperCase()} ${path}` })))
      .filter(({ path, key }) => !adapted.has(key) && !path.startsWith('/api/admin/') && path !== '/healthz' && path !== '/readyz');
    expect(restOnly.length).toBeGreaterThan(5);
    const text = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
    // the prediction-market research routes are named without their common prefix
    const missing = restOnly.filter(({ path }) => !text.includes(`\`${path.replace('/api/prediction-markets/', '')}\``) && !text.includes(path));
    expect(missing.map((r) => r.key)).toEqual([]);
  });
});
