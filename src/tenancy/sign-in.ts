import type { BoundedWork } from "../core/bounded-work.js";
import type { Clock } from "../core/clock.js";
import { hashPassword, verifyPassword } from "../core/passwords.js";
import { randomBytes } from "node:crypto";
import type { Metrics } from "../metrics/metrics.js";
import { swapLoginFailures } from "../store/passwords.js";
import type { Store } from "../store/store.js";
import { findUserByLogin, type UserRow } from "../store/tenancy.js";
import type { AddressThrottle } from "./address-throttle.js";
import type { Sessions } from "./sessions.js";
import { decideLogin, SIGN_IN_POLICY, type AccountState, type LoginResult, type LoginVerdict } from "./sign-in-policy.js";

/** Retries of a lockout write lost to concurrent attempts, far above what contention produces. */
const MAX_ROUNDS = 20;

export interface SignInDeps {
  store: Store;
  clock: Clock;
  metrics: Metrics;
  sessions: Sessions;
  throttle: AddressThrottle;
  /** The process's password hashing, bounded (a flood is refused 503 server_busy, not queued). */
  hashing: BoundedWork;
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
      this.deps.metrics.authLogins.inc({ result: "error" });
      throw err;
    }
  }

  private async attempt(login: string, password: string, address: string): Promise<SignInOutcome> {
    const { throttle } = this.deps;
    const blocked = await throttle.blockedFor(address);
    if (blocked > 0) return { result: "locked", retryAfter: blocked };
    // Counted before the check, atomically in the store: parallel attempts on any replica cannot all pass.
    const { counted, blockedFor } = await throttle.fail(address);
    if (blockedFor > 0) return { result: "locked", retryAfter: blockedFor };
    const first = await this.account(login);
    // An unknown login costs the same scrypt run as a known one, against a decoy hash, in the same bounded queue.
    const hash = first?.password_hash ?? (await this.decoyHash());
    // Refused busy (503), the attempt stays counted against its address: a flood from one address is throttled sooner.
    const passwordOk = (await this.deps.hashing.run(() => verifyPassword(password, hash))) && first !== undefined;
    const verdict = await this.decide(login, first, passwordOk);
    if (verdict.result !== "invalid") await throttle.forgive(counted);
    return this.answer(verdict.result, first?.id, address, verdict.retryAfter ?? 0);
  }

  /** The verdict, written only over the lockout state it was decided on; a lost race reads and decides again. */
  private async decide(login: string, first: UserRow | undefined, passwordOk: boolean): Promise<LoginVerdict> {
    let user = first;
    for (let round = 0; ; round++) {
      const state: AccountState | undefined = user && {
        failedLogins: user.failed_logins,
        lockedUntil: user.locked_until,
        passwordSetAt: user.password_set_at ?? 0,
        changeRequired: user.password_change_required === 1,
      };
      const verdict = decideLogin(state, passwordOk && user?.password_hash === first?.password_hash, this.deps.clock.now(), this.deps.passwordMaxAgeMs);
      if (!user || !state || !verdict.write) return verdict;
      if (await swapLoginFailures(this.deps.store.db, user.id, state, verdict.write)) return verdict;
      if (round >= MAX_ROUNDS) throw new Error("sign-in: lockout state kept changing under concurrent attempts");
      user = await this.account(login);
    }
  }

  /** The user a password may sign in as: known, active, with a password. */
  private async account(login: string): Promise<UserRow | undefined> {
    const user = await findUserByLogin(this.deps.store.db, login);
    return user && user.deactivated_at === null && user.password_hash !== null ? user : undefined;
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
    this.decoy ??= this.deps.hashing.run(() => hashPassword(randomBytes(16).toString("base64url")));
    // A refused first try must not leave a refusal behind for every later sign-in.
    this.decoy.catch(() => {
      this.decoy = undefined;
    });
    return this.decoy;
  }
}
