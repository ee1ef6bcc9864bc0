/** The 12 prediction-market venues (contract §2.12, supplement 2.15). */
export type VenueKind = 'market' | 'play_money' | 'forecast';

export interface Venue {
  id: string;
  name: string;
  kind: VenueKind;
  /** Paper PM trading may open positions here (supplement 1.8 lists kalshi and polymarket). */
  supportsTrading: boolean;
  /** Native price history is served for this venue (contract §4.3 rule 1). */
  nativeHistory: boolean;
  /** First year with resolved markets in the archive (calibration `finalPrice`, summary `earliestYear`). */
  sinceYear: number;
  /** Share of resolutions whose time the venue itself reports (resolvedAtVerified). */
  verifiedTimeShare: number;
  /** Public trade prints with wallets (whale feed evidence). */
  wallets: boolean;
}

export const VENUES: readonly Venue[] = [
  { id: 'polymarket', name: 'Polymarket', kind: 'market', supportsTrading: true, nativeHistory: true, sinceYear: 2020, verifiedTimeShare: 1, wallets: true },
  { id: 'kalshi', name: 'Kalshi', kind: 'market', supportsTrading: true, nativeHistory: true, sinceYear: 2021, verifiedTimeShare: 1, wallets: false },
  { id: 'rothera', name: 'Rothera', kind: 'market', supportsTrading: false, nativeHistory: false, sinceYear: 2023, verifiedTimeShare: 0.6, wallets: false },
  { id: 'limitless', name: 'Limitless', kind: 'market', supportsTrading: false, nativeHistory: false, sinceYear: 2024, verifiedTimeShare: 0.9, wallets: true },
  { id: 'smarkets', name: 'Smarkets', kind: 'market', supportsTrading: false, nativeHistory: false, sinceYear: 2016, verifiedTimeShare: 0.7, wallets: false },
  { id: 'manifold', name: 'Manifold', kind: 'play_money', supportsTrading: false, nativeHistory: false, sinceYear: 2022, verifiedTimeShare: 1, wallets: false },
  { id: 'metaculus', name: 'Metaculus', kind: 'forecast', supportsTrading: false, nativeHistory: false, sinceYear: 2016, verifiedTimeShare: 0.8, wallets: false },
  { id: 'predictit', name: 'PredictIt', kind: 'market', supportsTrading: false, nativeHistory: false, sinceYear: 2016, verifiedTimeShare: 0.5, wallets: false },
  { id: 'futuur', name: 'Futuur', kind: 'market', supportsTrading: false, nativeHistory: false, sinceYear: 2019, verifiedTimeShare: 0.6, wallets: false },
  { id: 'myriad', name: 'Myriad', kind: 'market', supportsTrading: false, nativeHistory: false, sinceYear: 2024, verifiedTimeShare: 0.9, wallets: true },
  { id: 'forecastex', name: 'ForecastEx', kind: 'market', supportsTrading: false, nativeHistory: false, sinceYear: 2024, verifiedTimeShare: 1, wallets: false },
  { id: 'gemini', name: 'Gemini Predictions', kind: 'market', supportsTrading: false, nativeHistory: false, sinceYear: 2025, verifiedTimeShare: 1, wallets: false },
];

export const VENUE_IDS = VENUES.map((v) => v.id);
const BY_ID = new Map(VENUES.map((v) => [v.id, v]));

export function venueById(id: string): Venue | undefined {
  return BY_ID.get(id);
}

/** `source` object of an event (supplement 2.15). */
export function sourceRef(id: string): { id: string; name: string; kind: VenueKind; supportsTrading: boolean } {
  const v = BY_ID.get(id)!;
  return { id: v.id, name: v.name, kind: v.kind, supportsTrading: v.supportsTrading };
}

/** Money totals and whale feeds leave out play-money and forecast venues (supplement 2.17, 2.18). */
export const isMoneyVenue = (id: string): boolean => BY_ID.get(id)?.kind === 'market';
