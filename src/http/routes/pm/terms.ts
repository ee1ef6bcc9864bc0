/** `GET /api/terms` — the API's acceptable-use terms (contract §1), linked from /docs. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from './common.js';
import { TermsResponse } from '../../responses/pm-data.js';

export const TERMS_PATH = '/api/terms';

export const ACCEPTABLE_USE = {
  version: '2026-11-23',
  title: 'Paper Arena API terms: acceptable use of market data',
  notFinancialAdvice: 'The service is a simulated (paper) trading surface. No real money and no real exchange is involved. Not financial advice.',
  venueMarketData: {
    covers: 'prices, probabilities, order books, quotes, volumes, open interest, venue event metadata, venue-reported settlement outcomes',
    allowed: ['reading live context for paper-trading decisions', 'scoring decisions against settled outcomes'],
    forbidden: [
      'training, fine-tuning, evaluating or benchmarking an AI/ML model on it (read-only inference input to an already-trained model is allowed)',
      'redistributing, reselling, sublicensing or bulk-extracting it',
      'using it for a product that competes with a source venue or with the service',
    ],
  },
  serviceCreatedData: {
    covers:
      'canonical event ids and cross-venue clusters, matching and orientation decisions, consensus/reference probability and its methodology, calibration and Brier scoring, coverage ledger, corrections and revision lineage, resolution-provenance classifications, decision artifacts (UUIDs, content hashes, attestations, signatures)',
    rights: 'Redistribution rights are granted by plan. The keyless tier is read-and-cite with attribution, free and permanent.',
  },
  attribution:
    'Callers who publish numbers, charts or answers built from the keyless prediction-market data are asked to attribute the service and link back. Responses name the venue behind venue data (`attribution` fields and the `X-Data-Attribution` header).',
  consensusMethodology: '/api/prediction-markets/consensus-methodology',
};

export const termsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    TERMS_PATH,
    { config: { publicRate: true }, schema: { tags: ['system'], summary: 'Acceptable-use terms of the API and its market data', response: ok(TermsResponse) } },
    async (_request, reply) => reply.header('Cache-Control', 'public, max-age=3600').send(ACCEPTABLE_USE),
  );
};
