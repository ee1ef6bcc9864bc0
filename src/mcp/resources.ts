import type { Resource } from '@modelcontextprotocol/sdk/types.js';
import {
  EXECUTION_ASSUMPTIONS,
  EXECUTION_VERSION,
  FUNDING_MODE,
  FUTURES_TAKER_FEE_BPS,
  PM_FEE_SCALE_BPS,
  SPOT_SLIPPAGE_BPS_PER_10K,
  SPOT_SLIPPAGE_CAP_BPS,
  SPOT_SPREAD_TIERS,
  SPOT_SPREAD_UNRANKED_BPS,
  SPOT_TAKER_FEE_BPS,
} from '../domain/execution-model.js';

/** A resource served from a keyless REST route (read in-process, same budget as REST) or built here. */
export interface McpResource extends Resource {
  /** `GET <path>` of the app, or null for a document built from the domain constants. */
  path: string | null;
}

export const RESOURCES: readonly McpResource[] = [
  {
    uri: 'paper-arena://contract/openapi.json',
    name: 'openapi',
    title: 'API contract (OpenAPI 3.1)',
    description: 'Every REST endpoint, request and response schema; the MCP tools are adapters over these routes.',
    mimeType: 'application/json',
    path: '/openapi.json',
  },
  {
    uri: 'paper-arena://terms',
    name: 'terms',
    title: 'Acceptable-use terms',
    description: 'What market data may be used for; keyless prediction-market data is read-and-cite with attribution.',
    mimeType: 'application/json',
    path: '/api/terms',
  },
  {
    uri: 'paper-arena://execution-model',
    name: 'execution-model',
    title: 'Paper execution model (paper_execution_v1)',
    description: 'How every paper fill is priced: fees, spreads, slippage and what is not modeled.',
    mimeType: 'application/json',
    path: null,
  },
  {
    uri: 'paper-arena://consensus-methodology',
    name: 'consensus-methodology',
    title: 'Cross-venue consensus methodology',
    description: 'How the prediction-market consensus (referenceProbability) is computed.',
    mimeType: 'application/json',
    path: '/api/prediction-markets/consensus-methodology',
  },
];

/** The disclosed cost model, straight from the constants the engines use. */
export function executionModelDocument(): Record<string, unknown> {
  return {
    version: EXECUTION_VERSION,
    fundingMode: FUNDING_MODE,
    spot: {
      takerFeeBps: SPOT_TAKER_FEE_BPS,
      spreadBpsByMarketCapRank: SPOT_SPREAD_TIERS,
      unrankedSpreadBps: SPOT_SPREAD_UNRANKED_BPS,
      marketFill: 'mid ± (half the spread + slippage); slippage grows with notional',
      slippageBpsPer10kMusd: SPOT_SLIPPAGE_BPS_PER_10K,
      slippageCapBps: SPOT_SLIPPAGE_CAP_BPS,
      restingFill: 'limit and stop-limit orders fill at their limit price, fee only',
    },
    futures: { takerFeeBps: FUTURES_TAKER_FEE_BPS, fill: 'at the mark, no spread or slippage' },
    predictionMarkets: { feeBps: `${PM_FEE_SCALE_BPS} × p × (1 − p)`, fill: 'at the ask plus size/liquidity slippage' },
    assumptions: EXECUTION_ASSUMPTIONS,
  };
}
