/**
 * Control calls that act on containers: remove, signal and list (over control.ts: the Engine API
 * where it reaches the engine, else the CLI). Names and labels the engine returns are untrusted.
 */
import { docker } from './cli';
import type { DockerOptions, ListedContainer } from './contracts';
import { apiFailure, cliFlavor, control, segment } from './control';
import { classifyEngineFailure } from './failures';
import { disposeEngineWorkDir } from './podman/workDir';

/**
 * Removes a container and its anonymous volumes (`docker rm -f -v`; API
 * `DELETE /containers/{name}?force=1&v=1`), which ends every process in it.
 * "No such container" counts as success, from the API only once the CLI agrees: the API client
 * resolves the endpoint itself (endpoint.ts) and the CLI started the container, so when they
 * disagree (a `dockerPath` wrapper or shim that picks another engine) a 404 of the API must not
 * leave the CLI's container behind. The extra CLI call happens only on a 404.
 * @throws SandboxError when the engine cannot remove it
 */
export async function removeContainer(opts: DockerOptions, name: string): Promise<void> {
  const cli = async () => {
    const r = await docker(opts, ['rm', '-f', '-v', name]);
    if (r.exitCode === 0 || /no such container/i.test(r.stderr)) return disposeEngineWorkDir(name);
    throw classifyEngineFailure(r.stderr, `remove container ${name}`);
  };
  await control(
    opts,
    async (c, t) => {
      const r = await c.request('DELETE', `/containers/${segment(name)}?force=1&v=1`, t);
      if (r.status < 300) return disposeEngineWorkDir(name);
      if (r.status === 404) return cli();
      throw apiFailure(r, `remove container ${name}`);
    },
    cli,
  );
}

/**
 * Sends a signal to a container's init process (`docker kill --signal`; API
 * `POST /containers/{name}/kill?signal=`), which docker-init forwards to the program's process
 * group (TINI_KILL_PROCESS_GROUP, see argv.ts).
 * @returns true when the engine delivered it (false: not running, gone, or the engine failed)
 */
export async function signalContainer(opts: DockerOptions, name: string, signal: NodeJS.Signals): Promise<boolean> {
  return control(
    opts,
    async (c, t) => (await c.request('POST', `/containers/${segment(name)}/kill?signal=${signal}`, t)).status === 204,
    async () => (await docker(opts, ['kill', '--signal', signal, name]).catch(() => undefined))?.exitCode === 0,
  ).catch(() => false);
}

/**
 * Containers in any state carrying every label filter (API `GET /containers/json?all=1&filters=`;
 * CLI `docker ps -a --filter label=…`).
 * @param labelFilters `docker ps --filter label=` values, e.g. `sandbox-runner=1`
 * @param labelKeys the labels to read on the CLI path ("" when absent); the API returns all
 * @throws SandboxError when the engine cannot be reached
 */
export async function listContainers(opts: DockerOptions, labelFilters: readonly string[], labelKeys: readonly string[]): Promise<ListedContainer[]> {
  return control(
    opts,
    async (c, t) => {
      const filters = encodeURIComponent(JSON.stringify({ label: labelFilters }));
      const r = await c.request('GET', `/containers/json?all=1&filters=${filters}`, t);
      if (r.status !== 200 || !Array.isArray(r.body)) throw apiFailure(r, 'list sandbox containers');
      return (r.body as { Names?: string[]; Labels?: Record<string, string> | null }[]).map((x) => {
        const labels: Record<string, string> = {};
        for (const k of labelKeys) labels[k] = x.Labels?.[k] ?? '';
        return { name: (x.Names?.[0] ?? '').replace(/^\//, ''), labels: { ...x.Labels, ...labels } };
      });
    },
    async () => {
      // `{{.Label "k"}}` gives one label's value ("" when absent), printed as a JSON string: a
      // value may hold line breaks and tabs (the engine stores any string), which printed raw
      // forged whole extra lines, i.e. containers with labels of their choosing (measured on
      // Docker 20.10 and Podman 4.3). Podman's `ps` has no `.Label`: its `.Labels` is a map, read with `index`.
      const podman = (await cliFlavor(opts)) === 'podman';
      const format = ['{{.Names}}', ...labelKeys.map((k) => (podman ? `{{json (index .Labels "${k}")}}` : `{{json (.Label "${k}")}}`))].join('\t');
      const args = ['ps', '-a', '--no-trunc', ...labelFilters.flatMap((f) => ['--filter', `label=${f}`]), '--format', format];
      const r = await docker(opts, args);
      if (r.exitCode !== 0) throw classifyEngineFailure(r.stderr, 'list sandbox containers');
      const out: ListedContainer[] = [];
      for (const line of r.stdout.split('\n')) {
        if (!line.trim()) continue;
        const [name = '', ...values] = line.split('\t');
        const labels: Record<string, string> = {};
        labelKeys.forEach((k, i) => (labels[k] = jsonString(values[i])));
        out.push({ name: name.trim(), labels });
      }
      return out;
    },
  );
}

/** A JSON string as the CLI's `{{json …}}` prints it, decoded; "" for anything else (never throws). */
function jsonString(text: string | undefined): string {
  try {
    const v: unknown = JSON.parse(text ?? '');
    return typeof v === 'string' ? v : '';
  } catch {
    return '';
  }
}
