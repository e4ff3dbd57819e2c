/**
 * A tiny PEP 503 index for suites outside the engine tier (issue 22): one pure-Python wheel,
 * `tinyhello` 1.0 (`tinyhello.greet()` returns "hello from tinyhello"), built with zipfile and served by
 * `python3 -m http.server` from the python test image on an `--internal` network the caller
 * creates, reachable as `http://registry:8000/simple/`. Offline: nothing is downloaded.
 */

/** The server's Python source (`python3 -c`); it prints `ready` once it serves. */
export const PIP_INDEX_SCRIPT = String.raw`
import os, zipfile, http.server, functools
www = '/tmp/www'
os.makedirs(f'{www}/files'); os.makedirs(f'{www}/simple/tinyhello')
dist = 'tinyhello-1.0.dist-info'
files = {
  'tinyhello/__init__.py': 'def greet():\n    return "hello from tinyhello"\n',
  f'{dist}/METADATA': 'Metadata-Version: 2.1\nName: tinyhello\nVersion: 1.0\n',
  f'{dist}/WHEEL': 'Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
}
files[f'{dist}/RECORD'] = ''.join(f'{p},,\n' for p in files) + f'{dist}/RECORD,,\n'
fn = 'tinyhello-1.0-py3-none-any.whl'
with zipfile.ZipFile(f'{www}/files/{fn}', 'w') as z:
    for p, text in files.items(): z.writestr(p, text)
open(f'{www}/simple/tinyhello/index.html', 'w').write(f'<a href="../../files/{fn}">{fn}</a>\n')
open(f'{www}/simple/index.html', 'w').write('<a href="tinyhello/">tinyhello</a>\n')
print('ready', flush=True)
http.server.ThreadingHTTPServer(('', 8000), functools.partial(http.server.SimpleHTTPRequestHandler, directory=www)).serve_forever()
`;

/** The index URL inside the caller's network (the server's network alias is `registry`). */
export const PIP_INDEX_URL = 'http://registry:8000/simple/';
