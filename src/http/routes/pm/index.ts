import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { StreamOptions } from '../../../pm/stream-hub.js';
import type { AppContext } from '../../context.js';
import { pmCanonicalRoutes } from './canonical.js';
import { pmDataRoutes } from './data.js';
import { pmResearchRoutes } from './research.js';
import { pmStreamRoutes } from './stream.js';
import { termsRoutes } from './terms.js';

/** Every keyless prediction-market route, the SSE stream and the terms page. */
export function pmRoutes(ctx: AppContext, stream: Partial<StreamOptions> = {}): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(pmDataRoutes(ctx));
    await app.register(pmCanonicalRoutes(ctx));
    await app.register(pmResearchRoutes(ctx));
    await app.register(pmStreamRoutes(ctx, stream));
    await app.register(termsRoutes);
  };
}
