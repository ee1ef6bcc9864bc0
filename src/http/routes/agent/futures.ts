import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { futuresCloseRoute } from './futures-close.js';
import { futuresOpenRoute } from './futures-open.js';
import { futuresQuoteRoute } from './futures-quote.js';
import { futuresSlTpRoute } from './futures-sl-tp.js';
import { positionsFuturesRoute } from './positions-futures.js';

/** Mock futures: quote, open/add, SL/TP, close, and the positions read. */
export function futuresRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(futuresQuoteRoute(ctx));
    await app.register(futuresOpenRoute(ctx));
    await app.register(futuresSlTpRoute(ctx));
    await app.register(futuresCloseRoute(ctx));
    await app.register(positionsFuturesRoute(ctx));
  };
}
