import type { Clock } from "../core/clock.js";
import { hashPassword, verifyPassword } from "../core/passwords.js";
import { randomBytes } from "node:crypto";
import type { Metrics } from "../metrics/metrics.js";
import { setLoginFailures } from "../store/passwords.js";
import type { Store } from "../store/store.js";
import { findUserByLogin } from "../store/tenancy.js";
import type { AddressThrottle } from "./address-throttle.js";
import type { Sessions } from "./sessions.js";
import { decideLogin, SIGN_IN_POLICY, type AccountState, type LoginResult } from "./sign-in-policy.js";

export interface SignInDeps {
  store: Store;
  clock: Clock;
  metrics: Metrics;
  sessions: Sessions;
  throttle: AddressThrottle;
  /** A password older than this must be changed at sign-in (SERVICE_PASSWORD_MAX_AGE); 0 = never. */
  passwordMaxAgeMs: number;
}

export type SignInOutcome =
  /** 200 with a session token; `password_change_required` sessions may only change the password. */
  | { result: "success" | "password_change_required"; token: string; session: Awaited<ReturnType<Sessions["open"]>>["session"] }
  /** 401, the same answer for an unknown login, a wrong password, a deactivated user or none set. */
  | { result: "invalid" }
  /** 429 with Retry-After: the account is locked, or the address has failed too often. */
  | { result: "locked"; retryAfter: number };

/** Password sign-in: one scrypt verification per attempt whether the login exists or not. */
export class SignIn {
  private decoy: Promise<string> | undefined;

  constructor(private readonly deps: SignInDeps) {}

  async login(login: string, password: string, address: string): Promise<SignInOutcome> {
    try {
      const outcome = await this.attempt(login.toLowerCase(), password, address);
      this.deps.metrics.authLogins.inc({ result: outcome.result });
      return outcome;
    } catch (err) {
      this.deps.metrics.authLogins.inc({ result: "error" satisfies "error" });
      throw err;
    }
  }

  private async attempt(login: string, password: string, address: string): Promise<SignInOutcome> {
    const { store, clock, throttle } = this.deps;
    const blocked = throttle.blockedFor(address);
    if (blocked > 0) return { result: "locked", retryAfter: blocked };
    const user = await findUserByLogin(store.db, login);
    const usable = user && user.deactivated_at === null && user.password_hash !== null ? user : undefined;
    // An unknown login costs the same scrypt run as a known one, against a decoy hash.
    const passwordOk = await verifyPassword(password, usable?.password_hash ?? (await this.decoyHash()));
    const account: AccountState | undefined = usable && {
      failedLogins: usable.failed_logins,
      lockedUntil: usable.locked_until,
      passwordSetAt: usable.password_set_at ?? 0,
      changeRequired: usable.password_change_required === 1,
    };
    const now = clock.now();
    const verdict = decideLogin(account, usable !== undefined && passwordOk, now, this.deps.passwordMaxAgeMs);
    if (usable && verdict.write) await setLoginFailures(store.db, usable.id, verdict.write.failedLogins, verdict.write.lockedUntil);
    if (verdict.result === "invalid") throttle.fail(address);
    return this.answer(verdict.result, usable?.id, address, verdict.retryAfter ?? 0);
  }

  private async answer(result: LoginResult, userId: string | undefined, address: string, retryAfter: number): Promise<SignInOutcome> {
    if (result === "invalid") return { result };
    if (result === "locked") return { result, retryAfter };
    const restricted = result === "password_change_required";
    const opened = await this.deps.sessions.open(
      this.deps.store.db,
      userId!,
      address,
      restricted,
      restricted ? SIGN_IN_POLICY.restrictedSessionMs : Number.POSITIVE_INFINITY,
    );
    return { result, ...opened };
  }

  private decoyHash(): Promise<string> {
    this.decoy ??= hashPassword(randomBytes(16).toString("base64url"));
    return this.decoy;
  }
}
