/**
 * A minimal Docker Engine API client for control calls (inspect, kill, remove, version), so that
 * each one costs a request on a kept-alive connection instead of one docker CLI process.
 *
 * Transports:
 *  - `unix://` endpoints: Node's `http` over the socket (`socketPath`), one keep-alive agent per
 *    socket; Node unrefs idle keep-alive sockets, so the agent never keeps the process alive.
 *  - any other endpoint (ssh, tcp with TLS, npipe, …): `docker system dial-stdio`, which the docker
 *    CLI provides for every context and host it can reach (it does the ssh/TLS itself). One child
 *    process, spawned with the CLI's environment and reused for the process lifetime; it is unref'd
 *    while idle and killed with this process.
 *
 * API version: the first request of a client asks `GET /_ping` for the engine's `Api-Version`
 * header and uses the lower of it and {@link MAX_API_VERSION}; without the header it uses
 * {@link MIN_API_VERSION} (Docker 20.10 and Podman's compat API both serve v1.41).
 *
 * A transport failure (no socket, connection refused, dial-stdio exited) throws
 * {@link EngineApiUnavailable}, so callers can fall back to the CLI, which then reports the
 * engine's own message. An answer of the engine (any HTTP status) is returned as it is.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { Duplex } from 'node:stream';
import { SandboxError } from '../errors';

/** The API version used when the engine does not say (Docker 20.10 serves up to 1.41). */
export const MIN_API_VERSION = '1.41';
/** The newest API version this client asks for; the fields it reads exist since 1.41. */
export const MAX_API_VERSION = '1.47';
/**
 * Largest engine answer read, bytes (32 MiB). The answers the runner asks for (inspect, version,
 * a filtered container list) are kilobytes; an engine (or something on its socket) that streams
 * without end must not grow this process's memory without bound. A longer answer fails the call.
 */
export const MAX_REPLY_BYTES = 32 * 1024 * 1024;

/** An engine answer. */
export interface ApiResponse {
  /** HTTP status (200, 204, 304, 404, 409, 500…). */
  readonly status: number;
  /** The body, parsed as JSON when it is JSON, else the text ("" for none). */
  readonly body: unknown;
  readonly headers: http.IncomingHttpHeaders;
}

/** The engine could not be reached over the API transport (not an answer of the engine). */
export class EngineApiUnavailable extends Error {
  /** True when it failed on a reused keep-alive connection before any answer (worth one retry). */
  reusedSocket = false;
  constructor(message: string, readonly errno?: string) {
    super(message);
    this.name = 'EngineApiUnavailable';
  }
}

/** How a client reaches the engine. */
export type EngineTransport =
  | { readonly kind: 'unix'; readonly socketPath: string }
  | {
      readonly kind: 'dial-stdio';
      /** The docker CLI binary and environment to run `system dial-stdio` with. */
      readonly binary: string;
      readonly env?: Readonly<Record<string, string | undefined>>;
    };

/** Compares dotted API versions ("1.41" < "1.47"). */
export function compareApiVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/**
 * The API version to use for an engine's `Api-Version` header: the lower of it and
 * {@link MAX_API_VERSION}, or {@link MIN_API_VERSION} when it is missing or malformed.
 */
export function negotiateApiVersion(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  if (!v || !/^1\.\d{1,3}$/.test(v.trim())) return MIN_API_VERSION;
  return compareApiVersions(v.trim(), MAX_API_VERSION) < 0 ? v.trim() : MAX_API_VERSION;
}

/**
 * A socket-like stream over a `docker system dial-stdio` child: what it writes goes to the
 * child's stdin, what the child prints is read. It implements the few `net.Socket` methods
 * Node's http Agent calls (`ref`, `unref`, `setKeepAlive`, `setNoDelay`, `setTimeout`).
 */
class DialStdioSocket extends Duplex {
  timeout = 0;
  constructor(private readonly child: ChildProcess) {
    super({ allowHalfOpen: false });
    const out = child.stdout!;
    out.on('data', (d: Buffer) => {
      if (!this.push(d)) out.pause();
    });
    out.on('end', () => this.push(null));
    child.on('error', (e) => this.destroy(new EngineApiUnavailable(`docker system dial-stdio failed: ${e.message}`, (e as NodeJS.ErrnoException).code)));
    child.on('exit', () => {
      // The engine connection ended (daemon gone, ssh closed): the agent drops this socket.
      if (!this.destroyed) this.destroy(new EngineApiUnavailable('docker system dial-stdio exited'));
    });
    child.stdin!.on('error', () => undefined);
  }
  override _read(): void {
    this.child.stdout!.resume();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.child.stdin!.write(chunk, cb);
  }
  override _final(cb: (e?: Error | null) => void): void {
    this.child.stdin!.end(cb);
  }
  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    cb(err);
  }
  ref(): this {
    this.child.ref();
    (this.child.stdout as unknown as { ref?: () => void }).ref?.();
    (this.child.stdin as unknown as { ref?: () => void }).ref?.();
    return this;
  }
  unref(): this {
    this.child.unref();
    (this.child.stdout as unknown as { unref?: () => void }).unref?.();
    (this.child.stdin as unknown as { unref?: () => void }).unref?.();
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(ms: number): this {
    this.timeout = ms;
    return this;
  }
}

/** An http Agent whose one connection is a `docker system dial-stdio` child. */
class DialStdioAgent extends http.Agent {
  constructor(private readonly transport: Extract<EngineTransport, { kind: 'dial-stdio' }>) {
    super({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1 });
  }
  override createConnection(): Duplex {
    const child = spawn(this.transport.binary, ['system', 'dial-stdio'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: this.transport.env as NodeJS.ProcessEnv | undefined,
      shell: false,
      windowsHide: true,
    });
    // Dies with this process (it only relays bytes); never keeps Node alive while idle.
    const kill = () => child.kill('SIGKILL');
    process.once('exit', kill);
    child.once('exit', () => process.removeListener('exit', kill));
    return new DialStdioSocket(child);
  }
}

/** One engine's API client (one per endpoint and process, see {@link engineClient}). */
export class EngineApiClient {
  private readonly agent: http.Agent;
  private version?: Promise<string>;

  constructor(readonly transport: EngineTransport) {
    this.agent = transport.kind === 'unix' ? new http.Agent({ keepAlive: true, maxFreeSockets: 4 }) : new DialStdioAgent(transport);
  }

  /**
   * One request to the engine, on the negotiated API version.
   * @param method HTTP method
   * @param path e.g. `/containers/NAME/json` (path segments must already be encoded)
   * @param timeoutMs longest wait for the whole answer, ms
   * @throws EngineApiUnavailable when the engine cannot be reached; SandboxError `engine-error` on a timeout
   */
  async request(method: string, path: string, timeoutMs: number): Promise<ApiResponse> {
    this.version ??= this.raw('GET', '/_ping', timeoutMs).then(
      (r) => negotiateApiVersion(r.headers['api-version']),
      (e: unknown) => {
        this.version = undefined;
        throw e;
      },
    );
    const versioned = `/v${await this.version}${path}`;
    try {
      return await this.raw(method, versioned, timeoutMs);
    } catch (e) {
      // A kept-alive connection the engine closed while idle fails at once on reuse (Node's http
      // docs: retry when `reusedSocket` and ECONNRESET); a fresh connection is tried once.
      if (e instanceof EngineApiUnavailable && e.reusedSocket) return this.raw(method, versioned, timeoutMs);
      throw e;
    }
  }

  /** The API version in use (negotiating it when needed). */
  async apiVersion(timeoutMs: number): Promise<string> {
    await this.request('GET', '/_ping', timeoutMs);
    return this.version!;
  }

  private raw(method: string, path: string, timeoutMs: number): Promise<ApiResponse> {
    return new Promise((resolve, reject) => {
      const req = http.request({
        agent: this.agent,
        method,
        path,
        // The Host header is required by HTTP/1.1; the engine ignores its value on a socket.
        host: 'docker',
        ...(this.transport.kind === 'unix' ? { socketPath: this.transport.socketPath } : {}),
        headers: { Accept: 'application/json' },
      });
      let gotResponse = false;
      const timer = setTimeout(() => {
        req.destroy(new SandboxError(
          'engine-error',
          `The Docker engine did not answer "${method} ${path.replace(/^\/v[\d.]+/, '').split('?')[0]}" within ${Math.round(timeoutMs / 1000)} s.`,
          'Check that the Docker engine is healthy (docker info) and try again.',
        ));
      }, timeoutMs);
      timer.unref();
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (e instanceof SandboxError) return reject(e);
        const u = e instanceof EngineApiUnavailable ? e : new EngineApiUnavailable(`the engine API is not reachable: ${e.message}`, e.code);
        u.reusedSocket = req.reusedSocket && !gotResponse;
        reject(u);
      });
      req.on('response', (res) => {
        gotResponse = true;
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (d: Buffer) => {
          bytes += d.length;
          if (bytes > MAX_REPLY_BYTES) {
            clearTimeout(timer);
            chunks.length = 0;
            req.destroy();
            reject(new SandboxError(
              'engine-error',
              `The Docker engine's answer to "${method} ${path.replace(/^\/v[\d.]+/, '').split('?')[0]}" was larger than ${MAX_REPLY_BYTES} bytes, so it was not read.`,
              'Check that the endpoint is a Docker engine and that it is healthy (docker info), then try again.',
            ));
            return;
          }
          chunks.push(d);
        });
        res.on('error', (e) => {
          clearTimeout(timer);
          reject(new EngineApiUnavailable(`the engine API answer broke off: ${e.message}`));
        });
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          if (/json/i.test(String(res.headers['content-type'] ?? '')) && text) {
            try {
              body = JSON.parse(text) as unknown;
            } catch {
              body = text;
            }
          }
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
        });
      });
      req.end();
    });
  }

  /** Closes idle connections (and a dial-stdio child). */
  close(): void {
    this.agent.destroy();
  }
}

const clients = new Map<string, EngineApiClient>();

/**
 * The process-wide client for a transport (created on first use, reused after).
 * @param key identifies the engine and how it is reached (socket path, or binary + CLI environment)
 */
export function engineClient(key: string, transport: EngineTransport): EngineApiClient {
  let c = clients.get(key);
  if (!c) {
    c = new EngineApiClient(transport);
    clients.set(key, c);
  }
  return c;
}

/** Closes every client's idle connections (tests; process exit does this by itself). */
export function closeEngineClients(): void {
  for (const c of clients.values()) c.close();
  clients.clear();
}

/** The engine's message in an error answer (`{"message": …}`), or the body text. */
export function apiErrorMessage(r: ApiResponse): string {
  const b = r.body as { message?: unknown } | string;
  const m = typeof b === 'object' && b && typeof b.message === 'string' ? b.message : typeof b === 'string' ? b : '';
  return m.trim() || `HTTP ${r.status}`;
}
