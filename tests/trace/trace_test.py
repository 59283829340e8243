#!/usr/bin/env python3
"""tests/trace/trace_test.py - rp_trace's end-to-end tests, one mode per
meson test (tests/trace/meson.build):

  determinism RP_TRACE      the same PPM bytes from every runnable variant
                            (--isa, from rp_trace --list-isa) and from
                            --threads 1, 2 and 3, for each triangle test
                            (--test watertight, the default, and mt)
  mesh RP_TRACE HAS MESH    --mesh renders MESH (HAS = 1: built with assimp);
                            a missing, empty, NaN-vertex or garbage file fails;
                            without assimp, --mesh says so
  badargs RP_TRACE          every bad option fails: non-zero exit, one line on
                            stderr, no output file (nor temporary file) left
  png RP_TRACE HAS          (HAS = 1) the PNG's signature and IHDR, and its
                            pixels decoded == the PPM's; (HAS = 0) a .png
                            path fails and says why

rp_trace runs through $MESON_EXE_WRAPPER in a cross build (qemu-aarch64).
Every run uses the smallest scene (--detail 1) and tiny images, so each
mode takes well under a second natively.  Exit 0 = pass, 1 = fail.
"""
import os
import shlex
import struct
import subprocess
import sys
import tempfile
import zlib

SMALL = ['--detail', '1', '--size', '64x48', '--spp', '2', '--ao', '2', '-q']
TESTS = [[], ['--test', 'mt']]  # the triangle tests: watertight (the default), Moller-Trumbore
failures = []


def wrapper():
    return shlex.split(os.environ.get('MESON_EXE_WRAPPER', ''))


def run(exe, args, timeout=120):
    p = subprocess.run(wrapper() + [exe] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(errors='replace'), p.stderr.decode(errors='replace')


def check(cond, what):
    print(('ok: ' if cond else 'FAIL: ') + what)
    if not cond:
        failures.append(what)


def render(exe, out, extra):
    rc, so, se = run(exe, SMALL + extra + ['-o', out])
    check(rc == 0 and os.path.exists(out), 'rp_trace %s -> exit %d%s' %
          (' '.join(extra), rc, (': ' + se.strip()) if rc else ''))
    return open(out, 'rb').read() if rc == 0 and os.path.exists(out) else None


def pixels_differ(a, b):
    """How many RGB pixels of two equally long byte strings differ."""
    return sum(1 for i in range(0, len(a), 3) if a[i:i + 3] != b[i:i + 3])


def read_ppm(data):
    # P6\nW H\n255\n + pixels (rp_trace's own layout)
    parts = data.split(b'\n', 3)
    w, h = map(int, parts[1].split())
    return w, h, parts[3]


def expect_failure(exe, args, d, what, needle=None):
    """args must fail: non-zero exit, one line on stderr, nothing left in d."""
    before = set(os.listdir(d))
    rc, so, se = run(exe, args)
    lines = [l for l in se.splitlines() if l.strip()]
    left = sorted(set(os.listdir(d)) - before)
    ok = rc != 0 and len(lines) == 1 and lines[0].startswith('rp_trace: ') and not left
    if needle is not None:
        ok = ok and needle in se
    check(ok, '%s fails cleanly (exit %d, stderr %r, files left %s)' % (what, rc, se.strip(), left))


def mode_determinism(exe):
    rc, so, se = run(exe, ['--list-isa'])
    isas = so.split()
    check(rc == 0 and isas, 'rp_trace --list-isa: %s' % ' '.join(isas))
    with tempfile.TemporaryDirectory() as d:
        for test in TESTS:
            same_bytes(exe, d, isas, test)
        # --test reaches the queries: the two tests' images of a frame
        # where some rays meet edges differ (3 pixels of this one, on
        # 2026-11-30; equal images mean both ran one test, unless the
        # built-in scene or camera changed)
        frame = ['--size', '640x360', '--spp', '2', '--ao', '0']
        imgs = [render(exe, os.path.join(d, 'edge.ppm'), frame + t) for t in TESTS]
        if None not in imgs:
            n = pixels_differ(read_ppm(imgs[0])[2], read_ppm(imgs[1])[2])
            check(0 < n < 100, '--test mt and watertight images of a 640x360 frame differ in '
                  'a few pixels (%d)' % n)
        # the test each run says it used
        for test, name in [([], 'watertight test'), (['--test', 'mt'], 'Moller-Trumbore test'),
                           (['--test=watertight'], 'watertight test')]:
            rc, so, se = run(exe, SMALL + test + ['-o', os.path.join(d, 'said.ppm')])
            check(rc == 0 and name in so, 'rp_trace %s says "%s"' % (' '.join(test), name))


def same_bytes(exe, d, isas, opts):
    """Every variant and thread count renders the same bytes with opts."""
    ref = None
    runs = [['--isa', i, '--threads', '1'] for i in isas]
    runs += [['--threads', '2'], ['--threads', '3'], ['--threads', '3', '--isa', isas[-1]]]
    for extra in runs:
        extra = opts + extra
        data = render(exe, os.path.join(d, 'img.ppm'), extra)
        if data is None:
            continue
        if ref is None:
            ref = data
            w, h, px = read_ppm(data)
            check(w == 64 and h == 48 and len(px) == 3 * w * h, 'PPM is 64x48')
            # not a trivial picture: many distinct colours
            check(len({px[i:i + 3] for i in range(0, len(px), 3)}) > 50,
                  'the image has more than 50 distinct colours')
            continue
        diff = pixels_differ(ref, data)
        check(data == ref, '%s: the same bytes as --isa %s --threads 1 (%d pixels differ)' %
              (' '.join(extra), isas[0], diff))


def mode_mesh(exe, has, mesh):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'mesh.ppm')
        if has != '1':
            expect_failure(exe, ['--mesh', mesh, '-o', out], d, '--mesh without assimp', 'libassimp')
            return
        data = render(exe, out, ['--mesh', mesh])
        if data is not None:
            w, h, px = read_ppm(data)
            check((w, h) == (64, 48), '--mesh image is 64x48')
            # the mesh fills part of the frame: some pixels are not sky
            check(len({px[i:i + 3] for i in range(0, len(px), 3)}) > 10, '--mesh image is not empty')
            os.unlink(out)
        empty = os.path.join(d, 'empty.obj')
        open(empty, 'w').close()
        nan = os.path.join(d, 'nan.off')
        with open(nan, 'w') as f:
            f.write('OFF\n3 1 0\n0 0 0\n1 0 0\nnan 1 0\n3 0 1 2\n')
        nan_obj = os.path.join(d, 'nan.obj')
        with open(nan_obj, 'w') as f:
            f.write('v 0 0 0\nv 1 0 0\nv 0 nan 0\nf 1 2 3\n')
        garbage = os.path.join(d, 'garbage.ply')
        with open(garbage, 'wb') as f:
            f.write(b'ply\nthis is not a ply header\n\x00\x01\x02')
        nofaces = os.path.join(d, 'points.obj')
        with open(nofaces, 'w') as f:
            f.write('v 0 0 0\nv 1 0 0\n')
        for path, what, needle in [
                (os.path.join(d, 'missing.obj'), 'a missing --mesh file', 'No such file'),
                (empty, 'an empty --mesh file', 'empty'),
                (nan, 'an OFF with a NaN vertex', None),
                (nan_obj, 'an OBJ with a NaN vertex', None),
                (garbage, 'a garbage PLY', None),
                (nofaces, 'an OBJ without faces', None),
                (d, 'a directory as --mesh', None)]:
            expect_failure(exe, SMALL + ['--mesh', path, '-o', out], d, what, needle)


def mode_badargs(exe):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'out.ppm')
        cases = [
            (['--size', '0x10'], 'a zero width'),
            (['--size', '64x0'], 'a zero height'),
            (['--size', '100000x100000'], 'an absurd size'),
            (['--size', '16384x16384'], 'too many pixels'),
            (['--size', 'abc'], 'a size that is no size'),
            (['--size', '64x'], 'a size without height'),
            (['--size', '-64x32'], 'a negative size'),
            (['--spp', '0'], '--spp 0'),
            (['--spp', 'x'], '--spp x'),
            (['--spp', '2.5'], '--spp 2.5'),
            (['--spp', '99999999999999999999'], 'an overflowing --spp'),
            (['--ao', '-1'], '--ao -1'),
            (['--threads', '0'], '--threads 0'),
            (['--threads', ''], 'an empty --threads'),
            (['--detail', '99'], '--detail 99'),
            (['--isa', 'bogus'], 'an unknown --isa'),
            (['--ao-hint', 'sideways'], 'an unknown --ao-hint'),
            (['--test', 'robust'], 'an unknown --test'),
            (['--test'], '--test without its value'),
            (['--frobnicate'], 'an unknown option'),
            (['--spp'], 'an option without its value'),
            (['-o', os.path.join(d, 'no', 'such', 'dir', 'x.ppm')], 'an output in a missing directory'),
            (['-o', os.path.join(d, 'x.bmp')], 'an unknown output format'),
            (['-o', d + '/'], 'a directory as output'),
            (['-o', ''], 'an empty output name'),
        ]
        if os.geteuid() != 0:  # root writes anywhere
            ro = os.path.join(d, 'ro')
            os.mkdir(ro, 0o555)
            cases.append((['-o', os.path.join(ro, 'x.ppm')], 'an output in a read-only directory'))
        for args, what in cases:
            # (-o before the case's options, so that one missing its value is last)
            full = SMALL + args if any(a == '-o' for a in args) else SMALL + ['-o', out] + args
            expect_failure(exe, full, d, what)
        # and the same options, well formed, work and leave exactly the image
        rc, so, se = run(exe, SMALL + ['--threads', '2', '-o', out])
        check(rc == 0 and sorted(os.listdir(d)) == sorted(['out.ppm'] + (['ro'] if os.geteuid() else [])),
              'a good command line leaves exactly the image (%s)' % sorted(os.listdir(d)))


def png_chunks(data):
    pos = 8
    while pos < len(data):
        n, typ = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack('>I', data[pos + 8 + n:pos + 12 + n])
        yield typ, body, crc == (zlib.crc32(typ + body) & 0xffffffff)
        pos += 12 + n


def png_pixels(data, w, h):
    idat = b''.join(body for typ, body, ok in png_chunks(data) if typ == b'IDAT')
    raw = zlib.decompress(idat)
    stride, bpp = 3 * w, 3
    out, prev = bytearray(), bytearray(stride)
    pos = 0
    for _ in range(h):
        f = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        out += line
        prev = line
    return bytes(out)


def mode_png(exe, has):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'out.png')
        if has != '1':
            expect_failure(exe, SMALL + ['-o', out], d, 'a .png output without libpng', 'libpng')
            return
        data = render(exe, out, ['--threads', '2'])
        if data is None:
            return
        check(data[:8] == b'\x89PNG\r\n\x1a\n', 'PNG signature')
        chunks = list(png_chunks(data))
        check(all(ok for _, _, ok in chunks), 'every chunk CRC is right')
        check(chunks[0][0] == b'IHDR' and chunks[-1][0] == b'IEND', 'IHDR first, IEND last')
        w, h, depth, ctype, comp, filt, inter = struct.unpack('>IIBBBBB', chunks[0][1])
        check((w, h, depth, ctype, inter) == (64, 48, 8, 2, 0),
              'IHDR: 64x48, 8-bit RGB, not interlaced (%d x %d, %d, %d, %d)' % (w, h, depth, ctype, inter))
        ppm = render(exe, os.path.join(d, 'out.ppm'), ['--threads', '1'])
        if ppm is not None:
            check(png_pixels(data, w, h) == read_ppm(ppm)[2], 'the PNG decodes to the PPM\'s pixels')


def main():
    mode, exe = sys.argv[1], sys.argv[2]
    if mode == 'determinism':
        mode_determinism(exe)
    elif mode == 'mesh':
        mode_mesh(exe, sys.argv[3], sys.argv[4])
    elif mode == 'badargs':
        mode_badargs(exe)
    elif mode == 'png':
        mode_png(exe, sys.argv[3])
    else:
        print('unknown mode ' + mode)
        return 1
    print('%s: %d failed' % (mode, len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
