import { writeFileSync } from 'node:fs';
import { currentOpenApiDocument, SNAPSHOT_PATH } from './openapi-document.js';

// Run after an intended API change: `npm run openapi:snapshot`, then review and commit the diff.
writeFileSync(SNAPSHOT_PATH, `${JSON.stringify(await currentOpenApiDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${SNAPSHOT_PATH.pathname}\n`);
