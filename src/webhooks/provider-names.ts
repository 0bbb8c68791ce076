/** How a delivery is proven: `token` echoed, `hmac` over the body, `standard`: Standard Webhooks signatures. */
export type SignMode = "token" | "hmac" | "standard";

/**
 * The spec's provider names (SPEC-NOTES §1), the forge each one is, the other names input may
 * call it by, and what validating input needs to know of it: the one table of them. Input (a
 * webhook's or a connection's `provider`, a delivery URL's provider segment) takes a spec name,
 * its forge's name or an alias, in any case; the spec name is what is stored and returned. The
 * forges' registry (src/forges/registry.ts) is typed from it: each forge name here has exactly
 * one forge module there, which carries this name.
 *
 * `signModes`: how its deliveries can be proven, the default first (each provider's module
 * proves these). `nestedPaths`: its repository paths are a project's full path whose groups
 * nest (`group/sub/name`), not `owner/name`.
 */
export const PROVIDER_NAMES = {
  forge_a: { forge: "gitlab", aliases: [], signModes: ["token"], nestedPaths: true },
  forge_b: { forge: "github", aliases: [], signModes: ["hmac"], nestedPaths: false },
  /** Gitea and Gogs: Forgejo keeps their webhooks and API. */
  forge_c: { forge: "forgejo", aliases: ["gitea", "gogs"], signModes: ["hmac"], nestedPaths: false },
  /** Callers name their own projects, nested or not. */
  generic: { forge: null, aliases: [], signModes: ["token", "hmac", "standard"], nestedPaths: true },
} as const satisfies Record<string, { forge: string | null; aliases: readonly string[]; signModes: readonly SignMode[]; nestedPaths: boolean }>;

type Table = typeof PROVIDER_NAMES;
export type ProviderName = keyof Table;
/** The providers that are a forge (with an API); generic is none. */
export type ForgeProviderName = { [N in ProviderName]: Table[N]["forge"] extends null ? never : N }[ProviderName];
/** The forge a provider name is, by its own name (`gitlab`, `github`, `forgejo`). */
export type ForgeNameOf<N extends ForgeProviderName> = Table[N]["forge"];

export const PROVIDERS = Object.keys(PROVIDER_NAMES) as readonly ProviderName[];

const byInput = new Map<string, ProviderName>(
  PROVIDERS.flatMap((name) => {
    const { forge, aliases }: { forge: string | null; aliases: readonly string[] } = PROVIDER_NAMES[name];
    return [name, ...(forge === null ? [] : [forge]), ...aliases].map((input) => [input, name] as const);
  }),
);

/** The names input may give beside the spec names (forge names, then aliases). */
export const PROVIDER_ALIASES: readonly string[] = [...byInput.keys()].filter((input) => !(PROVIDERS as readonly string[]).includes(input));

/** The spec name for a spec name, forge name or alias (case-insensitive); undefined for any other. */
export function providerNamed(input: string): ProviderName | undefined {
  return byInput.get(input.toLowerCase());
}
