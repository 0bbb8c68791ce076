/** The product's name and version, as its API document and its traces give them (package.json's). */
export const PRODUCT = { name: "bot-gateway", version: "0.15.0" } as const;
