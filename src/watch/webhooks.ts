/**
 * Delivers alert documents to webhooks, in order per webhook, in the
 * background: `send` returns at once, so a slow or failing receiver never
 * holds a check back. A failed delivery is retried with exponential backoff
 * (5 attempts); each webhook is known by the environment variable holding
 * its URL, and only that name is ever logged (URLs carry tokens).
 */
import type { Clock } from '../api/clock.js';
import type { AlertDocument } from './alerts.js';
import type { Logger } from './log.js';

export interface Webhook {
  /** The environment variable the URL came from: the only name shown. */
  name: string;
  url: string;
}

export interface WebhookOptions {
  clock: Clock;
  log: Logger;
  attempts?: number;
  baseDelayMs?: number;
  timeoutMs?: number;
}

export class Webhooks {
  readonly #queues = new Map<string, Promise<void>>();
  readonly #stop = new AbortController();

  constructor(
    private readonly hooks: readonly Webhook[],
    private readonly options: WebhookOptions,
  ) {}

  send(document: AlertDocument): void {
    for (const hook of this.hooks) {
      const previous = this.#queues.get(hook.name) ?? Promise.resolve();
      this.#queues.set(
        hook.name,
        previous.then(() => this.#deliver(hook, document)),
      );
    }
  }

  /** Settles when every document sent so far is delivered or given up. */
  async idle(): Promise<void> {
    await Promise.all(this.#queues.values());
  }

  /** Gives up on retries still waiting (at shutdown). */
  stop(): void {
    this.#stop.abort();
  }

  async #deliver(hook: Webhook, document: AlertDocument): Promise<void> {
    const { clock, log, attempts = 5, baseDelayMs = 1_000, timeoutMs = 10_000 } = this.options;
    const signal = this.#stop.signal;
    for (let attempt = 1; attempt <= attempts && !signal.aborted; attempt++) {
      const failure = await post(hook, document, AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]));
      if (failure === undefined) {
        log('info', 'webhook delivered', {
          webhook: hook.name,
          target: document.target,
          alert: document.alert,
          status: document.status,
        });
        return;
      }
      const last = attempt === attempts;
      log(last ? 'error' : 'warn', last ? 'webhook delivery given up' : 'webhook delivery failed, retrying', {
        webhook: hook.name,
        attempt,
        reason: failure,
      });
      if (!last) await clock.sleep(baseDelayMs * 2 ** (attempt - 1), signal).catch(() => {});
    }
  }
}

/** undefined when delivered; else why not (a status, an error code or what happened: never the URL). */
async function post(hook: Webhook, document: AlertDocument, signal: AbortSignal): Promise<string | undefined> {
  try {
    const response = await fetch(hook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(document),
      signal,
      // Never followed (the alert would go where the receiver says), but seen: a 3xx is its own reason.
      redirect: 'manual',
    });
    await response.body?.cancel();
    if (response.status >= 300 && response.status < 400) {
      return `HTTP ${response.status}: the webhook redirects elsewhere; redirects are not followed (set ${hook.name} to the final URL)`;
    }
    return response.ok ? undefined : `HTTP ${response.status}`;
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  }
}
