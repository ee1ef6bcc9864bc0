/**
 * The web pages, served by the API process from the same service functions as the JSON routes
 * (never by calling our own HTTP API). Public pages carry `publicRate` (the per-IP budget of the
 * keyless routes) and the Cache-Control of the JSON they mirror.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COMPETITION_SLUG_PATTERN } from '../arena/competitions.js';
import { BOARD_WINDOWS, DEFAULT_WINDOW, type BoardWindow } from '../arena/windows.js';
import { decodeCursor } from '../arena/dataset-cursor.js';
import { handleFor, keyIdFromHandle } from '../domain/api-keys.js';
import { CANDLE_RANGE_NAMES, DEFAULT_CANDLE_RANGE, type CandleRange } from '../domain/candles.js';
import { similarCoins } from '../domain/similar-coins.js';
import type { AppContext } from '../http/context.js';
import { ApiError } from '../http/errors.js';
import { CACHE } from '../http/routes/arena/schemas.js';
import { relatedMarketsForCoin } from '../pm/api.js';
import { venueById } from '../pm/venues.js';
import { ArenaBoards, boardOptions } from '../services/arena-board.js';
import { decisionArtifact, decisionSettlement, decisionsPage } from '../services/arena-decisions.js';
import { computeScorecard } from '../services/arena-scorecards.js';
import { competitionBoard, listCompetitions } from '../services/competitions.js';
import { findPublicAgent } from '../storage/arena-board-repo.js';
import { findPublicDecision } from '../storage/arena-decisions-repo.js';
import { agentDecisions, realizedCurve } from './arena-data.js';
import { registerAssets, type AssetName } from './assets.js';
import { html, type Html } from './html.js';
import { page } from './layout.js';
import { calibrationPage, eventPage, MARKET_SORTS, marketsPage, topMoves, type MarketQuery, type MarketSort } from './markets-data.js';
import { BOARD_PAGE_SIZE, BOARD_SOURCES, leaderboardBody, profileBody, type BoardSource, type Row } from './pages/arena.js';
import { coinBody } from './pages/coins.js';
import { competitionBody, competitionsBody } from './pages/competitions.js';
import { artifactBody, datasetBody } from './pages/decisions.js';
import { consoleBody, homeBody } from './pages/home.js';
import { calibrationBody, eventBody, marketsBody } from './pages/markets.js';

/** As the prediction-market routes: lists and detail 5 s, calibration 60 s. */
const PM_CACHE = 'public, max-age=5';
const PM_SLOW_CACHE = 'public, max-age=60';
/** Coin pages: the public movers' lifetime (the keyed candles are cached 60 s privately). */
const COIN_CACHE = 'public, max-age=30';
const CALIBRATION_MIN_SAMPLE = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every script, style, image and connection comes from this origin. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The paths of the pages (the browser test and the docs walk this list). */
export const WEB_PATHS = ['/', '/arena', '/arena/:handle', '/arena/decisions', '/arena/decisions/:uuid', '/competitions', '/competitions/:slug', '/markets', '/markets/calibration', '/markets/:source/:slug', '/coins/:coinId', '/console'] as const;

type Query = Record<string, string | undefined>;
const str = (q: Query, k: string) => (typeof q[k] === 'string' ? q[k]!.trim() : '');
const pageNumber = (raw: string) => Math.min(1000, Math.max(1, Number.parseInt(raw, 10) || 1));
const COMPETITION_SLUG = new RegExp(COMPETITION_SLUG_PATTERN);
const oneOf = <T extends string>(raw: string, allowed: readonly T[], fallback: T): T => ((allowed as readonly string[]).includes(raw) ? (raw as T) : fallback);

interface Rendered {
  title: string;
  path: string;
  body: Html;
  scripts?: AssetName[];
  styles?: AssetName[];
}

function send(reply: FastifyReply, cache: string, r: Rendered, status = 200): FastifyReply {
  return reply
    .status(status)
    .header('cache-control', cache)
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(page(r));
}

function notFoundPage(reply: FastifyReply, path: string, what: string): FastifyReply {
  return send(reply, 'no-store', { title: 'Not found', path, body: html`<h1>Not found</h1><p>${what}</p><p><a href="/">Home</a></p>` }, 404);
}

/** First path segments that belong to the pages (everything under them is a page address). */
const PAGE_SECTIONS = new Set(WEB_PATHS.map((p) => p.split('/')[1]!).filter((section) => section !== ''));

/**
 * The HTML 404 for an address under a page section that no page route matched (`/markets/`,
 * `/arena/a7-x/`), or null for any other address (the API's JSON 404 answers those).
 */
export function pageNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply | null {
  const path = request.url.split('?')[0]!;
  if (!PAGE_SECTIONS.has(path.split('/')[1] ?? '')) return null;
  return notFoundPage(reply, path.length > 200 ? `${path.slice(0, 200)}…` : path, 'There is no page at this address.');
}

const CHART: Pick<Rendered, 'scripts' | 'styles'> = { scripts: ['uplot.js', 'charts.js'], styles: ['uplot.css'] };

export function webRoutes(ctx: AppContext) {
  return async (app: FastifyInstance): Promise<void> => {
    const db = ctx.database.db;
    const boards = new ArenaBoards(db, ctx.clock, boardOptions(ctx));
    const publicPage = { config: { publicRate: true }, schema: { hide: true } };
    registerAssets(app);

    // People get pages for errors too (the budget's 429 keeps its Retry-After and RateLimit-* headers).
    app.setErrorHandler((error, request, reply) => {
      const path = request.url.split('?')[0]!;
      if (error instanceof ApiError) {
        reply.headers(error.headers);
        return send(reply, 'no-store', { title: 'Error', path, body: html`<h1>${error.statusCode === 429 ? 'Too many requests' : 'Request refused'}</h1><p>${error.message}</p>` }, error.statusCode);
      }
      request.log.error({ err: error }, 'page failed');
      return send(reply, 'no-store', { title: 'Error', path, body: html`<h1>Something went wrong</h1><p>The page could not be built; try again shortly.</p>` }, 500);
    });

    app.get('/', publicPage, async (_request, reply) => {
      const board = await boards.leaderboard(DEFAULT_WINDOW, 1, 5);
      const moves = await topMoves(ctx.database, ctx.clock, 8);
      const coins = (ctx.marketReads?.coins() ?? []).slice(0, 8);
      return send(reply, PM_CACHE, { title: 'Home', path: '/', body: homeBody(board.rows as Row[], moves, coins), scripts: ['live.js'] });
    });

    app.get<{ Querystring: Query }>('/arena', publicPage, async (request, reply) => {
      const window = oneOf<BoardWindow>(str(request.query, 'window'), BOARD_WINDOWS, DEFAULT_WINDOW);
      const source = oneOf<BoardSource>(str(request.query, 'source'), BOARD_SOURCES, 'all');
      const page = Math.min(100, pageNumber(str(request.query, 'page')));
      const board = await boards.leaderboard(window, page, BOARD_PAGE_SIZE, source === 'all' ? undefined : source);
      return send(reply, CACHE.leaderboard, { title: 'Arena', path: '/arena', body: leaderboardBody(board, source) });
    });

    app.get<{ Querystring: Query }>('/arena/decisions', publicPage, async (request, reply) => {
      const q = request.query;
      const limit = oneOf(str(q, 'limit'), ['25', '50', '100', '250'], '50');
      const agent = str(q, 'agent');
      const cursorText = str(q, 'cursor');
      const includeOpportunities = str(q, 'includeOpportunities') === 'true';
      let agentError: string | null = null;
      let keyId: number | null = null;
      let matchesNothing = false;
      if (agent) {
        keyId = keyIdFromHandle(agent);
        if (keyId === null) agentError = `${agent} is not a public handle (like a12-my-agent)`;
        const found = keyId === null ? null : await findPublicAgent(db, keyId);
        matchesNothing = !found || handleFor(found.keyId, found.agentName) !== agent;
      }
      const cursor = cursorText ? decodeCursor(cursorText) : { d: 0, o: 0 };
      const result = await decisionsPage(db, {
        nowMs: ctx.clock.now(),
        limit: Number(limit),
        cursor: cursor ?? { d: 0, o: 0 },
        cursorText: cursor ? cursorText || null : null,
        keyId,
        matchesNothing,
        includeOpportunities,
      });
      const body = datasetBody(result.envelope, { agent, limit: Number(limit), cursor: cursorText, includeOpportunities }, agentError);
      return send(reply, CACHE.decisions, { title: 'Decisions', path: '/arena/decisions', body });
    });

    app.get<{ Params: { uuid: string } }>('/arena/decisions/:uuid', publicPage, async (request, reply) => {
      const path = '/arena/decisions';
      const row = UUID.test(request.params.uuid) ? await findPublicDecision(db, request.params.uuid) : null;
      if (!row) return notFoundPage(reply, path, `No public decision ${request.params.uuid}.`);
      return send(reply, CACHE.decisions, { title: 'Decision', path, body: artifactBody(decisionArtifact(row), decisionSettlement(row)), scripts: ['verify.js'] });
    });

    app.get<{ Params: { handle: string } }>('/arena/:handle', publicPage, async (request, reply) => {
      const { handle } = request.params;
      const keyId = keyIdFromHandle(handle);
      const profile = keyId === null ? null : await boards.profile(keyId, handle);
      if (!profile || keyId === null) return notFoundPage(reply, '/arena', `No public agent ${handle}.`);
      const now = ctx.clock.now();
      const [{ response }, curve, decisions] = await Promise.all([computeScorecard(db, keyId), realizedCurve(db, keyId, now), agentDecisions(db, keyId, now)]);
      const agent = profile.agent as Row;
      const body = profileBody({ agent, scorecard: response as unknown as Record<string, unknown>, curve, decisions });
      return send(reply, CACHE.leaderboard, { title: agent.agentName ?? handle, path: `/arena/${handle}`, body, ...CHART });
    });

    app.get('/competitions', publicPage, async (_request, reply) =>
      send(reply, CACHE.competitions, { title: 'Competitions', path: '/competitions', body: competitionsBody(await listCompetitions(db, ctx.clock.now())) }),
    );

    app.get<{ Params: { slug: string } }>('/competitions/:slug', publicPage, async (request, reply) => {
      const slug = request.params.slug;
      // only a well-formed slug reaches the database (a NUL byte would be a database error, not a 404)
      const board = COMPETITION_SLUG.test(slug) ? await competitionBoard(db, slug, ctx.clock.now()) : null;
      if (!board) return notFoundPage(reply, '/competitions', `No competition ${slug}.`);
      return send(reply, CACHE.competitions, { title: board.competition.name, path: '/competitions', body: competitionBody(board) });
    });

    app.get<{ Querystring: Query }>('/markets', publicPage, async (request, reply) => {
      const q = request.query;
      const source = str(q, 'source');
      const query: MarketQuery = {
        q: str(q, 'q').slice(0, 200),
        source: venueById(source) ? source : null,
        status: oneOf(str(q, 'status'), ['open', 'closed', ''] as const, '') || null,
        sort: oneOf<MarketSort>(str(q, 'sort'), Object.keys(MARKET_SORTS) as MarketSort[], 'best'),
        page: pageNumber(str(q, 'page')),
      };
      const list = await marketsPage(ctx.database, ctx.clock, query);
      return send(reply, PM_CACHE, { title: 'Markets', path: '/markets', body: marketsBody(list, query) });
    });

    app.get('/markets/calibration', publicPage, async (_request, reply) => {
      const series = await calibrationPage(ctx.database, ctx.clock);
      return send(reply, PM_SLOW_CACHE, { title: 'Calibration', path: '/markets/calibration', body: calibrationBody(series, CALIBRATION_MIN_SAMPLE), ...CHART });
    });

    app.get<{ Params: { source: string; slug: string } }>('/markets/:source/:slug', publicPage, async (request, reply) => {
      const { source, slug } = request.params;
      const data = slug.length <= 300 ? await eventPage(ctx.database, ctx.clock, source, slug) : null;
      if (!data) return notFoundPage(reply, '/markets', `No market ${source}/${slug}.`);
      return send(reply, PM_CACHE, { title: data.row.title, path: `/markets/${source}/${slug}`, body: eventBody(data, (id) => ctx.marketReads?.coin(id)?.name ?? null), ...CHART });
    });

    app.get<{ Params: { coinId: string }; Querystring: Query }>('/coins/:coinId', publicPage, async (request, reply) => {
      const reads = ctx.marketReads;
      const path = `/coins/${request.params.coinId}`;
      if (!reads) return send(reply, 'no-store', { title: 'Unavailable', path, body: html`<h1>Market data is not running in this process</h1>` }, 503);
      const coin = reads.coins().find((c) => c.coinId === request.params.coinId);
      if (!coin) return notFoundPage(reply, path, `No coin ${request.params.coinId}.`);
      const range = oneOf<CandleRange>(str(request.query, 'range'), CANDLE_RANGE_NAMES, DEFAULT_CANDLE_RANGE);
      const body = coinBody({
        coin,
        quote: reads.quote(coin.coinId),
        range,
        candles: reads.candles(coin.coinId, range),
        fearGreed: reads.fearGreed(),
        similar: similarCoins(reads.coins(), coin.coinId, 6).map((s) => s.coin),
        related: await relatedMarketsForCoin(ctx.database, ctx.clock, coin.coinId, 5),
      });
      return send(reply, COIN_CACHE, { title: coin.name, path, body, ...CHART });
    });

    // The console is a shell: no data in the HTML, every action an admin API call from the browser.
    app.get('/console', publicPage, async (_request, reply) =>
      send(reply, 'no-store', { title: 'Console', path: '/console', body: consoleBody(), scripts: ['console.js'] }),
    );
  };
}
