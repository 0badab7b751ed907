/** Which service the reference server behaves as: the contract, or the real phpAnalytics v31 with its quirks. */
export const QUIRK_MODES = ['phpanalytics-v31'] as const;
export type QuirksName = (typeof QUIRK_MODES)[number];
export type ServerMode = 'normal' | QuirksName;
