/**
 * The ModuleNotFoundError Quick Fix (issue 22): from a failed Python run's message
 * `ModuleNotFoundError: No module named 'X'`, the distribution that usually provides X (a table of
 * common mismatches, else X itself) and the edit that adds it to the script's PEP 723 block
 * (inserting the block when there is none). The module name comes from program output: it is only
 * a suggestion the user applies in the editor, never a decision of the runner; a name that is not a
 * plain module name gets no suggestion. Pure.
 */
import { pythonSpecProblem } from '../profiles/dependencySpecs';

/** Import names whose distribution on the index is named otherwise (module → distribution). */
export const MODULE_DISTRIBUTIONS: Readonly<Record<string, string>> = {
  yaml: 'pyyaml', cv2: 'opencv-python', sklearn: 'scikit-learn', PIL: 'pillow', bs4: 'beautifulsoup4',
  dateutil: 'python-dateutil', dotenv: 'python-dotenv', jwt: 'pyjwt', Crypto: 'pycryptodome', OpenSSL: 'pyopenssl',
  serial: 'pyserial', usb: 'pyusb', magic: 'python-magic', docx: 'python-docx', pptx: 'python-pptx',
  fitz: 'pymupdf', skimage: 'scikit-image', attr: 'attrs', OpenGL: 'PyOpenGL', MySQLdb: 'mysqlclient',
  psycopg2: 'psycopg2-binary', Levenshtein: 'python-levenshtein', slugify: 'python-slugify', telegram: 'python-telegram-bot',
  discord: 'discord.py', socks: 'pysocks', jose: 'python-jose', multipart: 'python-multipart', gi: 'pygobject',
  win32api: 'pywin32', wx: 'wxpython', nacl: 'pynacl', Bio: 'biopython', ldap: 'python-ldap',
  zmq: 'pyzmq', git: 'GitPython', kafka: 'kafka-python', faiss: 'faiss-cpu', igraph: 'python-igraph',
};

const MISSING = /ModuleNotFoundError: No module named '([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z0-9_.]*)?'/;

/** The top-level module a `ModuleNotFoundError` message names; undefined when `message` is not one. */
export function missingModule(message: string): string | undefined {
  return MISSING.exec(message)?.[1];
}

/** The distribution to suggest for module `name` (the table, else the name itself); undefined when it would not be a valid requirement. */
export function distributionFor(name: string): string | undefined {
  const dist = Object.hasOwn(MODULE_DISTRIBUTIONS, name) ? MODULE_DISTRIBUTIONS[name]! : name;
  return pythonSpecProblem(dist) === undefined ? dist : undefined;
}

/** A text edit: replace lines `[startLine, endLine)` (0-based) with `lines`. */
export interface LineEdit {
  readonly startLine: number;
  readonly endLine: number;
  readonly lines: readonly string[];
}

/**
 * How to add `dist` to the PEP 723 block of `code`: extend its `dependencies` (a one-line list or a
 * list spread over lines), add the key to a block without one, or insert a new block (after a
 * shebang and an encoding line). Undefined when the block already lists it or is too unusual to edit.
 */
export function addDependencyEdit(code: string, dist: string): LineEdit | undefined {
  const lines = code.split(/\r?\n/);
  const quoted = JSON.stringify(dist);
  const start = lines.findIndex((l) => /^# \/\/\/ script\s*$/.test(l));
  const end = start < 0 ? -1 : lines.findIndex((l, i) => i > start && /^# \/\/\/\s*$/.test(l));
  if (start < 0 || end < 0) {
    let at = 0;
    if (lines[0]?.startsWith('#!')) at = 1;
    if (/^#.*coding[:=]/.test(lines[at] ?? '')) at++;
    return { startLine: at, endLine: at, lines: ['# /// script', `# dependencies = [${quoted}]`, '# ///'] };
  }
  const block = lines.slice(start + 1, end);
  if (block.some((l) => l.includes(quoted))) return undefined;
  const keyAt = block.findIndex((l) => /^#\s*dependencies\s*=\s*\[/.test(l));
  if (keyAt < 0) return { startLine: start + 1, endLine: start + 1, lines: [`# dependencies = [${quoted}]`] };
  const line = block[keyAt]!;
  const oneLine = /^(#\s*dependencies\s*=\s*\[)(.*)\](\s*)$/.exec(line);
  if (oneLine) {
    const items = oneLine[2]!.trim().replace(/,$/, '');
    return { startLine: start + 1 + keyAt, endLine: start + 2 + keyAt, lines: [`${oneLine[1]}${items ? `${items}, ` : ''}${quoted}]${oneLine[3]}`] };
  }
  if (/\[\s*$/.test(line)) return { startLine: start + 2 + keyAt, endLine: start + 2 + keyAt, lines: [`#   ${quoted},`] };
  return undefined;
}
