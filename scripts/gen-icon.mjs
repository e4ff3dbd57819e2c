// Draws media/icon.png (128x128 RGBA PNG), the Marketplace icon: the activity bar's cube
// (media/sandbox.svg) in white on a blue rounded square, with a play triangle on its front face.
// No dependencies: 4x4 supersampled coverage, PNG written with node:zlib. Deterministic output;
// run `node scripts/gen-icon.mjs` after changing the drawing.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const SS = 4;

/** Distance from point p to segment ab. */
function segDist(px, py, ax, ay, bx, by) {
  const dx = bx - ax, dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}
/** True when p is inside the polygon (even-odd rule). */
function inPoly(px, py, pts) {
  let inside = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const [xi, yi] = pts[i], [xj, yj] = pts[j];
    if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
/** Inside a rounded square with margin m and radius r. */
function inRounded(px, py, m, r) {
  const lo = m + r, hi = SIZE - m - r;
  const cx = Math.max(lo, Math.min(hi, px)), cy = Math.max(lo, Math.min(hi, py));
  return Math.hypot(px - cx, py - cy) <= r;
}

// The cube of media/sandbox.svg (24-unit box) scaled to the icon: 4.2 px per unit, offset 13.6.
const S = 4.2, O = 13.6;
const p = (x, y) => [O + x * S, O + y * S];
const lines = [
  [p(12, 2), p(21, 7)], [p(21, 7), p(21, 17)], [p(21, 17), p(12, 22)], [p(12, 22), p(3, 17)], [p(3, 17), p(3, 7)], [p(3, 7), p(12, 2)],
  [p(3, 7), p(12, 12)], [p(12, 12), p(21, 7)], [p(12, 12), p(12, 22)],
];
const STROKE = 3.2;
// A play triangle on the right (front) face.
const play = [p(14.2, 12.2), p(14.2, 18.6), p(19.2, 14.6)];

function sample(x, y) {
  if (!inRounded(x, y, 2, 22)) return null;
  if (lines.some(([a, b]) => segDist(x, y, a[0], a[1], b[0], b[1]) <= STROKE / 2)) return [255, 255, 255];
  if (inPoly(x, y, play)) return [255, 214, 10];
  // Background: a vertical blue gradient.
  const t = y / SIZE;
  return [Math.round(20 + 10 * t), Math.round(110 - 40 * t), Math.round(200 - 40 * t)];
}

const raw = Buffer.alloc((SIZE * 4 + 1) * SIZE);
for (let y = 0; y < SIZE; y++) {
  raw[y * (SIZE * 4 + 1)] = 0; // filter: none
  for (let x = 0; x < SIZE; x++) {
    let r = 0, g = 0, b = 0, a = 0;
    for (let sy = 0; sy < SS; sy++) {
      for (let sx = 0; sx < SS; sx++) {
        const c = sample(x + (sx + 0.5) / SS, y + (sy + 0.5) / SS);
        if (!c) continue;
        r += c[0]; g += c[1]; b += c[2]; a++;
      }
    }
    const o = y * (SIZE * 4 + 1) + 1 + x * 4;
    raw[o] = a ? Math.round(r / a) : 0;
    raw[o + 1] = a ? Math.round(g / a) : 0;
    raw[o + 2] = a ? Math.round(b / a) : 0;
    raw[o + 3] = Math.round((255 * a) / (SS * SS));
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(SIZE, 0);
ihdr.writeUInt32BE(SIZE, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // colour type: RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('../media/icon.png', import.meta.url), png);
console.log(`media/icon.png: ${SIZE}x${SIZE}, ${png.length} bytes`);
