import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Default time a login waits for the browser to come back. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;

/**
 * A one-shot HTTP listener on 127.0.0.1 for the OAuth redirect (`/callback`): checks `state`,
 * hands over the `code` (or the authorization server's error) and answers the browser with a short
 * page. A request with another `state` is answered 400 and changes nothing: any local program or
 * web page can reach the port, and must not be able to end the login. Listens on `port` (0: an ephemeral one); `unref`'d, so it never keeps keel alive.
 */
export class LoopbackCallback {
  /** `state` the callback must carry (random, per login). */
  readonly state = randomBytes(16).toString("base64url");
  private waiters: { resolve(code: string): void; reject(error: Error): void }[] = [];
  private result?: { code?: string; error?: Error };

  private constructor(private readonly server: Server) {}

  /** Starts listening; a busy fixed port falls back to an ephemeral one when `fallback` is set. */
  static async listen(port = 0, fallback = true): Promise<LoopbackCallback> {
    const server = createServer();
    const cb = new LoopbackCallback(server);
    server.on("request", (req, res) => cb.onRequest(req.url ?? "/", res));
    try {
      await listenOn(server, port);
    } catch (error) {
      if (!fallback || port === 0) throw error;
      await listenOn(server, 0);
    }
    server.unref();
    return cb;
  }

  /** `http://127.0.0.1:<port>/callback`. */
  get redirectUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  /** The authorization code, once the browser is back; rejects on the server's error (with this login's state), `timeoutMs` or `signal`. */
  waitForCode(timeoutMs = LOGIN_TIMEOUT_MS, signal?: AbortSignal): Promise<string> {
    if (this.result) {
      const r = this.result;
      this.result = undefined;
      return r.code ? Promise.resolve(r.code) : Promise.reject(r.error!);
    }
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          done(
            new Error(
              `No answer from the browser within ${Math.round(timeoutMs / 1000)} s: the login was not finished. Run the login again and open the printed URL.`,
            ),
          ),
        timeoutMs,
      );
      timer.unref();
      const onAbort = () => done(new Error("The login was cancelled."));
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = (error?: Error, code?: string) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        if (error) reject(error);
        else resolve(code!);
      };
      const waiter = { resolve: (code: string) => done(undefined, code), reject: (e: Error) => done(e) };
      this.waiters.push(waiter);
    });
  }

  /** Drops a result no one waited for (a code from an earlier, abandoned attempt). */
  reset(): void {
    this.result = undefined;
  }

  /** Stops listening. Idempotent. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections?.();
      this.server.close(() => resolve());
    });
  }

  private onRequest(path: string, res: import("node:http").ServerResponse): void {
    const url = new URL(path, "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    // Not this login's answer (another page or program, or an earlier attempt's browser tab): refused, and the login keeps waiting.
    if (url.searchParams.get("state") !== this.state) {
      res
        .writeHead(400, { "content-type": "text/plain; charset=utf-8" })
        .end("keel: this callback carried a wrong state parameter and was ignored; keel is still waiting for the login it started.");
      return;
    }
    const code = url.searchParams.get("code");
    const error = url.searchParams.get("error");
    let outcome: { code?: string; error?: Error };
    if (error)
      outcome = {
        error: new Error(
          `The authorization server refused the login: ${error}${url.searchParams.get("error_description") ? ` (${url.searchParams.get("error_description")})` : ""}.`,
        ),
      };
    else if (!code) outcome = { error: new Error("The login callback carried no authorization code. Run the login again.") };
    else outcome = { code };
    res
      .writeHead(outcome.code ? 200 : 400, { "content-type": "text/plain; charset=utf-8" })
      .end(outcome.code ? "keel: login complete. You can close this window." : `keel: login failed. ${outcome.error!.message}`);
    const waiter = this.waiters[0];
    if (!waiter) this.result = outcome;
    else if (outcome.code) waiter.resolve(outcome.code);
    else waiter.reject(outcome.error!);
  }
}

function listenOn(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError);
      resolve();
    });
  });
}
