/**
 * The session kernel (issue 24): a constant Python program sent as the snippet over stdin, like
 * any run's code (launcher.ts), so no image change is needed. No profile or user text is inside
 * it. It runs as the profile's command (`python3 main.py`) under the launcher and:
 * 1. keeps private duplicates of the container's stdin and stdout (`os.dup`: close-on-exec, so
 *    no child process inherits them), points fd 0 at /dev/null and `dup2`s fd 1 and fd 2 onto
 *    two pipes of its own, so everything the user's code writes (`print`, `os.write(1, …)`, C
 *    extensions, child processes) is bytes it reads, never bytes on the protocol's stream;
 * 2. speaks the protocol (frames.ts) on the private descriptors only: host → kernel `x` frames
 *    hold a cell's code; kernel → host `o`/`e` frames hold the cell's stdout/stderr bytes and `m`
 *    frames one JSON message (`hello`, `display`, `error`, `input`, `files`, `done`);
 * 3. runs each cell in one persistent namespace (a fresh `__main__` module), the last expression
 *    shown through the display hook, as IPython does: IPython's `DisplayFormatter` when it can be
 *    imported, else the `_repr_*_` methods of the value and `repr`; `display()` is a builtin;
 *    matplotlib figures (backend `agg` unless set) are sent as PNG at the end of each cell;
 * 4. reads its stdin on a thread of its own, so an `i` frame (the host's interrupt or timeout,
 *    naming the cell by number) arrives while a cell runs: it sends SIGINT to the main thread,
 *    which raises KeyboardInterrupt only while that cell's code runs (a late signal never
 *    reaches the next cell; any other SIGINT is ignored). An interrupt that arrives while the
 *    kernel writes a frame waits until the frame is whole, so the stream never breaks mid-frame;
 * 5. on an `f` frame (JSON `{files: {name: base64}, collect: bool}`, before the next cell) writes
 *    those files under /sandbox before that cell's code runs (relative names only; a bad one is
 *    the cell's error), and with `collect` sends a `files` message after it: the regular files
 *    under /sandbox/out/ changed during the cell, at most 8 and 1 MiB in all (symlinks never followed);
 * 6. replaces `input()` and `getpass.getpass` (in the main thread while a cell runs): sends an
 *    `input` message (the prompt, cut to 1000 characters; the password flag) and waits for the
 *    host's `r` frame answering that request's number: the text (echoed into the cell's stdout, a
 *    password as dots), an EOFError text, or a cancel (KeyboardInterrupt); an `i` frame interrupts
 *    the wait like any code;
 * 7. names the traceback entries that are frames of a cell's own code (`frames`: entry index, cell
 *    number, line) from the code objects it compiled for each cell, never from file names or text;
 *    a syntax error in a cell names its line the same way;
 * 8. exits when its stdin ends (the host closed the session or went away).
 * Bytes written while no cell runs (a thread, a child process) are held, at most 64 KiB, and
 * become the next cell's output. Code that deliberately finds the private descriptor can write
 * frames of its own; they are data of its own cell like its output, bounded the same way, and a
 * malformed one or one outside a cell ends the session (session.ts).
 */
export const KERNEL_SOURCE = String.raw`
import ast, base64, builtins, io, json, linecache, os, queue, select, signal, sys, threading, time, traceback, types

P_IN = os.dup(0)
P_OUT = os.dup(1)
_nul = os.open(os.devnull, os.O_RDONLY)
os.dup2(_nul, 0)
os.close(_nul)
_r1, _w1 = os.pipe()
_r2, _w2 = os.pipe()
os.dup2(_w1, 1)
os.dup2(_w2, 2)
os.close(_w1)
os.close(_w2)
os.set_blocking(_r1, False)
os.set_blocking(_r2, False)
sys.stdin = open(os.devnull, 'r')
sys.stdout.reconfigure(line_buffering=True)
sys.stderr.reconfigure(line_buffering=True)
os.environ.setdefault('MPLBACKEND', 'agg')

KFILE = os.path.abspath(__file__)
SEND = threading.Lock()
PUMP = threading.Lock()
HELD_MAX = 65536
state = {'asked': 0, 'active': False, 'running': False, 'held': [], 'held_bytes': 0, 'count': 0, 'interrupt': 0, 'sending': 0, 'deferred': False}
MAIN = threading.get_ident()
CELLS = queue.Queue()
REPLIES = queue.Queue()
PROMPT_MAX = 1000

def send(kind, body):
    data = (len(body) + 1).to_bytes(4, 'big') + kind + body
    main = threading.get_ident() == MAIN
    if main:
        state['sending'] += 1
    try:
        with SEND:
            view = memoryview(data)
            while view:
                n = os.write(P_OUT, view)
                view = view[n:]
    finally:
        if main:
            state['sending'] -= 1
    if main and state['deferred'] and not state['sending']:
        state['deferred'] = False
        if state['running']:
            raise KeyboardInterrupt

def message(obj):
    send(b'm', json.dumps(obj, ensure_ascii=True, separators=(',', ':')).encode('ascii'))

def forward(kind, data):
    if state['active']:
        send(kind, data)
    elif state['held_bytes'] < HELD_MAX:
        data = data[:HELD_MAX - state['held_bytes']]
        state['held'].append((kind, data))
        state['held_bytes'] += len(data)

def read_ready(fds):
    for fd, kind in ((_r1, b'o'), (_r2, b'e')):
        if fd in fds:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if data:
                forward(kind, data)

def drain():
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            pass
    with PUMP:
        while True:
            ready = select.select([_r1, _r2], [], [], 0)[0]
            if not ready:
                return
            read_ready(ready)

def pump():
    while True:
        ready = select.select([_r1, _r2], [], [])[0]
        with PUMP:
            read_ready(ready)

threading.Thread(target=pump, daemon=True).start()

MIMES = ('text/plain', 'text/html', 'text/markdown', 'image/png', 'image/jpeg', 'image/svg+xml', 'application/json')
REPRS = (('text/html', '_repr_html_'), ('text/markdown', '_repr_markdown_'), ('image/png', '_repr_png_'),
         ('image/jpeg', '_repr_jpeg_'), ('image/svg+xml', '_repr_svg_'), ('application/json', '_repr_json_'))
try:
    from IPython.core.formatters import DisplayFormatter
    FORMATTER = DisplayFormatter()
except Exception:
    FORMATTER = None

def bundle(obj):
    data = {}
    if FORMATTER is not None:
        try:
            data = dict(FORMATTER.format(obj)[0])
        except Exception:
            data = {}
    if not data:
        for mime, name in REPRS:
            f = getattr(obj, name, None)
            if not callable(f):
                continue
            try:
                v = f()
            except Exception:
                continue
            if isinstance(v, tuple):
                v = v[0] if v else None
            if v is not None:
                data[mime] = v
        try:
            data['text/plain'] = repr(obj)
        except Exception as e:
            data['text/plain'] = '<repr failed: %s>' % type(e).__name__
    out = {}
    for mime, v in data.items():
        if mime not in MIMES:
            continue
        if isinstance(v, (bytes, bytearray)):
            v = base64.b64encode(bytes(v)).decode('ascii') if mime.startswith('image/') and mime != 'image/svg+xml' else bytes(v).decode('utf-8', 'replace')
        if mime == 'application/json':
            try:
                v = json.loads(v) if isinstance(v, str) else json.loads(json.dumps(v))
            except Exception:
                continue
        elif not isinstance(v, str):
            continue
        out[mime] = v
    return out

def emit(obj):
    data = bundle(obj)
    drain()
    if data:
        message({'t': 'display', 'data': data})

def display(*objs):
    for obj in objs:
        emit(obj)

def hook(value):
    if value is None:
        return
    builtins._ = value
    emit(value)

builtins.display = display
sys.displayhook = hook

def figures():
    plt = sys.modules.get('matplotlib.pyplot')
    if plt is None:
        return
    try:
        for num in plt.get_fignums():
            buf = io.BytesIO()
            plt.figure(num).savefig(buf, format='png', bbox_inches='tight')
            drain()
            message({'t': 'display', 'data': {'image/png': base64.b64encode(buf.getvalue()).decode('ascii'), 'text/plain': '<Figure %d>' % num}})
        plt.close('all')
    except Exception:
        pass

CODES = {}

def remember(code, n):
    CODES[id(code)] = (code, n)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            remember(c, n)

def cell_of(code):
    known = CODES.get(id(code))
    return known[1] if known is not None and known[0] is code else 0

def frame_texts(pairs, summary, out, marks):
    last, count, prev = None, 0, 0
    for (frame, _), fs in zip(pairs, summary):
        key = (fs.filename, fs.lineno, fs.name)
        count = count + 1 if key == last else 1
        if key != last and last is not None and prev > 3:
            out.append('  [Previous line repeated %d more times]\n' % (prev - 3))
        last, prev = key, count
        if count > 3:
            continue
        n = cell_of(frame.f_code)
        if n and fs.lineno:
            marks.append([len(out), n, fs.lineno])
        out.append(''.join(traceback.StackSummary.from_list([fs]).format()))
    if last is not None and prev > 3:
        out.append('  [Previous line repeated %d more times]\n' % (prev - 3))

def chain(e, te, out, marks, syntax_cell):
    if te.__cause__ is not None and e.__cause__ is not None:
        chain(e.__cause__, te.__cause__, out, marks, 0)
        out.append('\nThe above exception was the direct cause of the following exception:\n\n')
    elif te.__context__ is not None and e.__context__ is not None and not te.__suppress_context__:
        chain(e.__context__, te.__context__, out, marks, 0)
        out.append('\nDuring handling of the above exception, another exception occurred:\n\n')
    pairs = list(traceback.walk_tb(e.__traceback__))
    if len(pairs) != len(te.stack):
        raise ValueError('frames and summaries differ')
    keep = [i for i, (f, _) in enumerate(pairs) if f.f_code.co_filename != KFILE]
    if keep:
        out.append('Traceback (most recent call last):\n')
        frame_texts([pairs[i] for i in keep], [te.stack[i] for i in keep], out, marks)
    if syntax_cell and getattr(e, 'lineno', None):
        marks.append([len(out), syntax_cell, e.lineno])
    out.extend(te.format_exception_only())

def error(e, syntax_cell=0):
    marks = []
    try:
        te = traceback.TracebackException(type(e), e, e.__traceback__)
        lines = []
        if getattr(te, 'exceptions', None):
            raise ValueError('an exception group: plain text')
        chain(e, te, lines, marks, syntax_cell)
    except Exception:
        marks = []
        try:
            te = traceback.TracebackException(type(e), e, e.__traceback__)
            te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename != KFILE])
            lines = list(te.format())
        except Exception:
            lines = ['%s\n' % type(e).__name__]
    try:
        value = str(e)
    except Exception:
        value = '<str failed>'
    drain()
    message({'t': 'error', 'ename': type(e).__name__, 'evalue': value, 'traceback': lines, 'frames': marks})

def ask(prompt, password):
    if threading.get_ident() != MAIN or not state['running']:
        raise EOFError('input() is only answered while a cell runs, on its main thread')
    prompt = str(prompt)[:PROMPT_MAX]
    drain()
    while not REPLIES.empty():
        REPLIES.get_nowait()
    state['asked'] += 1
    n = state['asked']
    message({'t': 'input', 'n': n, 'prompt': prompt, 'password': bool(password)})
    while True:
        reply = REPLIES.get()
        if reply.get('n') == n:
            break
    if 'value' in reply:
        value = str(reply['value'])
        send(b'o', (prompt + ('\u00b7' * 8 if password else value) + '\n').encode('utf-8', 'replace'))
        return value
    if reply.get('eof'):
        raise EOFError(str(reply['eof']))
    raise KeyboardInterrupt('Interrupted by user')

def kernel_input(prompt=''):
    return ask(prompt, False)

def kernel_getpass(prompt='Password: ', stream=None):
    return ask(prompt, True)

builtins.input = kernel_input
try:
    import getpass
    getpass.getpass = kernel_getpass
except Exception:
    pass

def on_sigint(signum, frame):
    if state['running'] and state['interrupt'] == state['count']:
        if state['sending']:
            state['deferred'] = True
        else:
            raise KeyboardInterrupt

signal.signal(signal.SIGINT, on_sigint)
main = types.ModuleType('__main__')
main.__dict__['__builtins__'] = builtins
sys.modules['__main__'] = main
NS = main.__dict__

SANDBOX = '/sandbox'
OUT_FILES, OUT_BYTES = 8, 1024 * 1024

def safe_name(name):
    parts = name.split('/')
    return isinstance(name, str) and 0 < len(name) <= 200 and '\0' not in name and not name.startswith('/') and all(p not in ('', '.', '..') for p in parts)

def write_files(files):
    for name, b64 in files.items():
        if not safe_name(name):
            raise ValueError('not a relative file name: %r' % name)
        path = os.path.join(SANDBOX, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, 'wb') as f:
            f.write(base64.b64decode(b64))

def out_files(since):
    found, total, dropped = [], 0, 0
    root = os.path.join(SANDBOX, 'out')
    for top, dirs, names in os.walk(root):
        dirs.sort()
        for n in sorted(names):
            path = os.path.join(top, n)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not os.path.isfile(path) or os.path.islink(path) or st.st_mtime_ns < since:
                continue
            rel = os.path.relpath(path, root)
            if len(found) >= OUT_FILES or total + st.st_size > OUT_BYTES or not safe_name(rel):
                dropped += 1
                continue
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, 'rb') as f:
                    data = f.read(OUT_BYTES - total + 1)
            except OSError:
                dropped += 1
                continue
            if total + len(data) > OUT_BYTES:
                dropped += 1
                continue
            total += len(data)
            found.append({'name': rel, 'data': base64.b64encode(data).decode('ascii')})
    return found, dropped

class Compiled(Exception):
    pass

def run(src, req=None):
    since = time.time_ns()
    state['count'] += 1
    state['deferred'] = False
    name = '<cell %d>' % state['count']
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    with PUMP:
        state['active'] = True
        for kind, data in state['held']:
            send(kind, data)
        state['held'] = []
        state['held_bytes'] = 0
    status = 'ok'
    try:
        try:
            tree = ast.parse(src, name, 'exec')
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Interactive([tree.body.pop()])
            first = compile(tree, name, 'exec')
            second = compile(last, name, 'single') if last is not None else None
        except SyntaxError as e:
            status = 'error'
            error(e, state['count'] if e.filename == name else 0)
            first = None
        if first is None:
            raise Compiled
        remember(first, state['count'])
        if second is not None:
            remember(second, state['count'])
        if req and req.get('files'):
            write_files(req['files'])
        state['running'] = True
        try:
            if state['interrupt'] == state['count']:
                raise KeyboardInterrupt
            exec(first, NS)
            if second is not None:
                exec(second, NS)
        finally:
            state['running'] = False
    except Compiled:
        pass
    except KeyboardInterrupt as e:
        status = 'interrupted'
        error(e)
    except BaseException as e:
        status = 'error'
        error(e)
    figures()
    if req and req.get('collect'):
        try:
            found, dropped = out_files(since)
            drain()
            message({'t': 'files', 'files': found, 'dropped': dropped})
        except Exception as e:
            error(e)
    drain()
    with PUMP:
        state['active'] = False
    message({'t': 'done', 'n': state['count'], 'status': status})

def read_exact(n):
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(P_IN, n - len(buf))
        if not chunk:
            os._exit(0)
        buf += chunk
    return bytes(buf)

def reader():
    while True:
        size = int.from_bytes(read_exact(4), 'big')
        body = read_exact(size)
        if body[:1] == b'x':
            CELLS.put((b'x', body[1:]))
        elif body[:1] == b'f':
            CELLS.put((b'f', body[1:]))
        elif body[:1] == b'r':
            try:
                reply = json.loads(body[1:])
            except ValueError:
                os._exit(3)
            if not isinstance(reply, dict):
                os._exit(3)
            REPLIES.put(reply)
        elif body[:1] == b'i' and len(body) == 5:
            n = int.from_bytes(body[1:], 'big')
            state['interrupt'] = n
            if state['running'] and state['count'] == n:
                signal.pthread_kill(MAIN, signal.SIGINT)
        else:
            os._exit(3)

threading.Thread(target=reader, daemon=True).start()
message({'t': 'hello', 'protocol': 1, 'ipython': FORMATTER is not None, 'python': sys.version.split()[0]})
req = None
while True:
    kind, body = CELLS.get()
    if kind == b'f':
        req = json.loads(body)
        continue
    run(body.decode('utf-8', 'replace'), req)
    req = None
`;
