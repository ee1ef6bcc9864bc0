/**
 * The operator and user guides of docs/*.md, served as they are: an HTML index at
 * /docs/guide (linked from the OpenAPI description, so from the /docs page) and each page as
 * plain text at /docs/guide/<page>. Read per request: pages added to docs/ need no code.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { projectPath } from '../../util/project-files.js';
import { ApiError } from '../errors.js';

const DOCS_DIR = `${projectPath('docs')}/`;
const PAGE = /^[a-z0-9][a-z0-9-]{0,63}$/;

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function pages(): { name: string; title: string }[] {
  if (!existsSync(DOCS_DIR)) return [];
  return readdirSync(DOCS_DIR)
    .filter((file) => file.endsWith('.md') && PAGE.test(file.slice(0, -3)))
    .sort()
    .map((file) => {
      const heading = /^# (.+)$/m.exec(readFileSync(DOCS_DIR + file, 'utf8'))?.[1] ?? file;
      return { name: file.slice(0, -3), title: heading.replace(/`/g, '') };
    });
}

export async function guideRoutes(app: FastifyInstance): Promise<void> {
  app.get('/docs/guide', { schema: { hide: true } }, async (_request, reply) => {
    const items = pages().map((p) => `<li><a href="/docs/guide/${p.name}">${escapeHtml(p.title)}</a> <code>docs/${p.name}.md</code></li>`);
    return reply
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Paper Arena guides</title></head><body>` +
          `<h1>Paper Arena guides</h1><p>Markdown pages of <code>docs/</code>, shown as plain text. API reference: <a href="/docs">/docs</a>.</p>` +
          `<ul>${items.join('')}</ul></body></html>`,
      );
  });

  app.get<{ Params: { page: string } }>('/docs/guide/:page', { schema: { hide: true } }, async (request, reply) => {
    const name = request.params.page.replace(/\.md$/, '');
    const file = `${DOCS_DIR}${name}.md`;
    if (!PAGE.test(name) || !existsSync(file)) throw new ApiError(404, 'guide_not_found', `no guide page "${name}"; see /docs/guide`);
    return reply.type('text/plain; charset=utf-8').send(readFileSync(file, 'utf8'));
  });
}
