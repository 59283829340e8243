// scene_bench.cc - rp_bench's scene rows (the rp_scene_* API against
// Embree 3 on the same triangles and the same rays), one thread:
//
//   scene/<variant>/build/<mesh>     rp_scene_build, counter Mtris_per_s
//   scene/<variant>/primary/<mesh>   pinhole camera framed on the mesh, one
//                                    rp_scene_closest (RP_WATERTIGHT) per
//                                    64x64 tile of the image
//   scene/<variant>/shadow/<mesh>    from each primary hit to a point light,
//                                    rp_scene_occluded (RP_WATERTIGHT)
//   scene/<variant>/diffuse/<mesh>   one cosine-weighted bounce from each
//                                    primary hit, rp_scene_closest
//   scene/auto/normals/<mesh>        rp_scene_normals on the primary hits,
//                                    counter Mhits_per_s
//   scene/embree/<kind>/<mesh>       Embree 3: build at RTC_BUILD_QUALITY_MEDIUM,
//                                    traces with RTC_SCENE_FLAG_ROBUST and
//                                    rtcIntersect1 / rtcOccluded1
//   scene/embree-high/<kind>/<mesh>  the build at RTC_BUILD_QUALITY_HIGH (not
//                                    robust: Embree 3 ignores HIGH for robust
//                                    scenes), and the trace kinds on that
//                                    scene with rtcIntersect1 / rtcOccluded1
//                                    (issue 11: trace speed at least Embree
//                                    HIGH's; non-robust, so not like for like)
//   scene/embree-p16/<kind>/<mesh>   the robust scene traced with rtcIntersect16 /
//                                    rtcOccluded16 (16 consecutive rays of a batch)
//   scene-pair/<variant>/<peer>/<kind>/<mesh>
//                                    raypack row <variant> (avx2, avx2-ray,
//                                    avx2-mt, ...) and Embree row <peer>
//                                    (embree, embree-high) in turns, one
//                                    trace of each per iteration (the order
//                                    alternating): counter ratio = the peer's
//                                    CPU time over raypack's, so > 1 when
//                                    raypack is faster.  Machines are noisy
//                                    at the scale of seconds; rows timed one
//                                    after another drift apart, a pair
//                                    interleaved at a tenth of a second
//                                    much less (bench/README.md)
//
// <variant>: every variant native to this CPU (rp_set_isa), scalar, and
// "auto" (rp_set_isa(RP_ISA_AUTO)).  The scalar variant runs the reference
// traversal (src/scene/traverse.c, one ray at a time); the others run what
// the dispatch table gives them, with no hint: each block of rays as a
// packet when its rays share the signs of d, else one ray at a time.  For
// the SIMD variants the trace kinds also have rows <variant>-packet
// (RP_COHERENT: packets always) and <variant>-ray (RP_INCOHERENT: one ray
// at a time always), which show both traversals on every kind, and rows
// <variant>-mt: the same query without RP_WATERTIGHT (Moller-Trumbore, the
// flags a caller gets by default; their results are digested apart).
// With RP_WATERTIGHT every variant must return the same bits: each trace
// row's results are digested and compared with the first variant's (a
// mismatch goes to stderr and the row's label).
// Items are rays (triangles for build); counters Mrays_per_s / Mtris_per_s
// (per CPU second of this thread, as items_per_second) and bytes_per_tri
// (rp_scene_bytes / triangles; for Embree, what its memory monitor counts
// for the BVH plus the vertex and index buffers it reads, bvh_bytes_per_tri
// the BVH alone).
//
// Meshes: "bunny" is bunny00.off from CGAL's data (75,408 triangles; see
// bench/README.md for where to get it), found in $RP_BENCH_MESH_DIR or
// --rp_mesh_dir=DIR; bunny_x4 and bunny_x16 are that mesh midpoint-
// subdivided once and twice (every triangle into 4, shared edge midpoints,
// so the mesh stays closed), and bunny_x64 (4.8M triangles; left out with
// RP_BENCH_SCENE_X64=0).  Without the file: a displaced icosphere of 81,920
// triangles named "ico" (ico_x4, ico_x16), and a line on stderr says so.
// Nothing is ever downloaded.  RP_BENCH_SCENE_RES sets the image side
// (default 1024, a multiple of 64).
//
// The same rays go to both: the shadow and diffuse rays are made once from
// raypack's primary hits.  Once per mesh and kind a line on stderr counts
// the rays whose hit (primitive id, or occluded flag) differs between
// raypack (watertight) and Embree (robust): a few at edges are expected.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#ifdef RPB_HAVE_EMBREE
#include <embree3/rtcore.h>
#endif

#include "bench.h"
#include "scene_bench.h"

namespace {

constexpr int kTile = 64;               // primary rays: one batch per 64x64 tile
constexpr size_t kBatch = kTile * kTile; // shadow and diffuse: batches of 4096
constexpr unsigned kFlags = RP_WATERTIGHT;

std::string g_mesh_dir;  // --rp_mesh_dir or $RP_BENCH_MESH_DIR
std::string g_base;      // "bunny" or "ico"
std::string g_off_path;  // the bunny00.off found at registration
int g_res = 1024;

// ---------------------------------------------------------------- meshes
struct Mesh {
    std::vector<float> xyz;    // 3 per vertex
    std::vector<uint32_t> idx; // 3 per triangle
    size_t ntris() const { return idx.size() / 3; }
    size_t nverts() const { return xyz.size() / 3; }
};

// OFF: "OFF" (optionally followed by the counts on the same line), then
// "nv nf ne", nv vertex lines (x y z, anything after ignored), nf face
// lines "k i0 ... ik-1" (anything after ignored: colours), polygons fan-
// triangulated.  '#' starts a comment.  Returns "" or what is wrong.
std::string read_off(const std::string &path, Mesh &m) {
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return path + ": " + std::strerror(errno);
    std::string text;
    char buf[1 << 16];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0)
        text.append(buf, got);
    std::fclose(f);
    // tokens line by line, comments dropped
    size_t pos = 0, line = 0;
    std::vector<std::string> tok;
    auto next_line = [&]() -> bool { // fills tok with the next non-empty line
        while (pos < text.size()) {
            size_t e = text.find('\n', pos);
            if (e == std::string::npos)
                e = text.size();
            std::string l = text.substr(pos, e - pos);
            pos = e + 1;
            line++;
            size_t h = l.find('#');
            if (h != std::string::npos)
                l.resize(h);
            tok.clear();
            size_t i = 0;
            while (i < l.size()) {
                while (i < l.size() && std::isspace((unsigned char)l[i]))
                    i++;
                size_t j = i;
                while (j < l.size() && !std::isspace((unsigned char)l[j]))
                    j++;
                if (j > i)
                    tok.push_back(l.substr(i, j - i));
                i = j;
            }
            if (!tok.empty())
                return true;
        }
        return false;
    };
    auto where = [&]() { return path + ":" + std::to_string(line) + ": "; };
    auto to_long = [](const std::string &s, long &v) {
        char *end;
        errno = 0;
        v = std::strtol(s.c_str(), &end, 10);
        return errno == 0 && *end == 0;
    };
    if (!next_line() || tok[0] != "OFF")
        return path + ": not an OFF file (the first line must be \"OFF\")";
    std::vector<std::string> counts(tok.begin() + 1, tok.end());
    if (counts.empty()) {
        if (!next_line())
            return where() + "missing the vertex/face/edge counts";
        counts = tok;
    }
    long nv, nf;
    if (counts.size() < 2 || !to_long(counts[0], nv) || !to_long(counts[1], nf) || nv < 3 ||
        nf < 1 || nv > (1l << 30) || nf > (1l << 30))
        return where() + "bad counts (want \"vertices faces edges\")";
    m.xyz.resize(3 * (size_t)nv);
    for (long i = 0; i < nv; i++) {
        if (!next_line())
            return where() + "file ends after " + std::to_string(i) + " of " +
                   std::to_string(nv) + " vertices";
        if (tok.size() < 3)
            return where() + "a vertex needs 3 coordinates";
        for (int k = 0; k < 3; k++) {
            char *end;
            float v = std::strtof(tok[k].c_str(), &end);
            if (*end || !std::isfinite(v))
                return where() + "bad coordinate \"" + tok[k] + "\"";
            m.xyz[3 * i + k] = v;
        }
    }
    m.idx.clear();
    m.idx.reserve(3 * (size_t)nf);
    for (long i = 0; i < nf; i++) {
        if (!next_line())
            return where() + "file ends after " + std::to_string(i) + " of " +
                   std::to_string(nf) + " faces";
        long k;
        if (!to_long(tok[0], k) || k < 3 || (size_t)k + 1 > tok.size())
            return where() + "a face is \"k i0 .. ik-1\" with k >= 3";
        std::vector<uint32_t> f(k);
        for (long j = 0; j < k; j++) {
            long v;
            if (!to_long(tok[1 + j], v) || v < 0 || v >= nv)
                return where() + "bad vertex index \"" + tok[1 + j] + "\"";
            f[j] = (uint32_t)v;
        }
        for (long j = 1; j + 1 < k; j++) { // fan
            m.idx.push_back(f[0]);
            m.idx.push_back(f[j]);
            m.idx.push_back(f[j + 1]);
        }
    }
    return "";
}

// Every triangle into 4 through its edge midpoints, one midpoint vertex
// per edge (a + b == b + a in float: both sides get the same bits).
Mesh subdivide(const Mesh &in) {
    Mesh out;
    out.xyz = in.xyz;
    out.idx.reserve(in.idx.size() * 4);
    std::unordered_map<uint64_t, uint32_t> mid;
    mid.reserve(in.idx.size());
    auto midpoint = [&](uint32_t a, uint32_t b) {
        uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
        auto it = mid.find(key);
        if (it != mid.end())
            return it->second;
        uint32_t id = (uint32_t)(out.xyz.size() / 3);
        for (int k = 0; k < 3; k++)
            out.xyz.push_back(0.5f * (in.xyz[3 * a + k] + in.xyz[3 * b + k]));
        mid.emplace(key, id);
        return id;
    };
    for (size_t t = 0; t < in.ntris(); t++) {
        uint32_t a = in.idx[3 * t], b = in.idx[3 * t + 1], c = in.idx[3 * t + 2];
        uint32_t ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
        uint32_t tri[12] = {a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca};
        out.idx.insert(out.idx.end(), tri, tri + 12);
    }
    return out;
}

// The fallback: an icosahedron subdivided 6 times onto the unit sphere
// (81,920 triangles), radius displaced by a smooth bumpy function.
Mesh icosphere() {
    const float p = 0.5f * (1.0f + std::sqrt(5.0f));
    Mesh m;
    m.xyz = {-1, p, 0, 1, p, 0, -1, -p, 0, 1, -p, 0, 0, -1, p, 0, 1, p,
             0, -1, -p, 0, 1, -p, p, 0, -1, p, 0, 1, -p, 0, -1, -p, 0, 1};
    m.idx = {0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4,
             11, 10, 2, 10, 7, 6, 7, 1, 8, 3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8,
             3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1};
    auto project = [](Mesh &mm) {
        for (size_t v = 0; v < mm.nverts(); v++) {
            float *q = &mm.xyz[3 * v];
            float l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
            q[0] /= l; q[1] /= l; q[2] /= l;
        }
    };
    project(m);
    for (int s = 0; s < 6; s++) {
        m = subdivide(m);
        project(m);
    }
    for (size_t v = 0; v < m.nverts(); v++) {
        float *q = &m.xyz[3 * v];
        float r = 1.0f + 0.12f * std::sin(5 * q[0]) * std::sin(7 * q[1]) * std::sin(6 * q[2]) +
                  0.03f * std::sin(23 * q[0] + 17 * q[1]);
        q[0] *= r; q[1] *= r; q[2] *= r;
    }
    return m;
}

std::map<std::string, std::unique_ptr<Mesh>> g_meshes;

// The mesh of a row name ("bunny", "bunny_x4", ...); NULL and *err set on failure.
const Mesh *get_mesh(const std::string &name, std::string *err) {
    auto it = g_meshes.find(name);
    if (it != g_meshes.end())
        return it->second.get();
    std::unique_ptr<Mesh> m(new Mesh);
    size_t us = name.find("_x");
    if (us != std::string::npos) {
        int factor = std::atoi(name.c_str() + us + 2);
        std::string parent = factor == 4 ? g_base : name.substr(0, us) + "_x" + std::to_string(factor / 4);
        const Mesh *pm = get_mesh(parent, err);
        if (!pm)
            return nullptr;
        *m = subdivide(*pm);
    } else if (g_base == "bunny") {
        std::string e = read_off(g_off_path, *m);
        if (!e.empty()) {
            *err = e;
            return nullptr;
        }
    } else {
        *m = icosphere();
    }
    std::fprintf(stderr, "rp_bench: scene mesh %s: %zu triangles, %zu vertices\n", name.c_str(),
                 m->ntris(), m->nverts());
    const Mesh *r = m.get();
    g_meshes[name] = std::move(m);
    return r;
}

// ---------------------------------------------------------------- rays
struct Batch {
    rp_rays r{};
    rp_hits h{};
    std::vector<float> tmax0;
    std::vector<uint8_t> occl;
};

struct RaySet {
    std::vector<std::unique_ptr<Batch>> b;
    size_t n = 0;
    ~RaySet() {
        for (auto &x : b) {
            rp_rays_free(&x->r);
            rp_hits_free(&x->h);
        }
    }
    Batch *add(size_t n_) {
        std::unique_ptr<Batch> x(new Batch);
        if (rp_rays_alloc(n_, &x->r) != RP_OK || rp_hits_alloc(n_, &x->h) != RP_OK) {
            std::fprintf(stderr, "rp_bench: out of memory\n");
            std::exit(1);
        }
        x->tmax0.assign(n_, INFINITY);
        x->occl.assign(n_, 0);
        n += n_;
        b.push_back(std::move(x));
        return b.back().get();
    }
    void prepare() {
        for (auto &x : b) {
            std::memcpy(x->tmax0.data(), x->r.tmax, x->r.n * sizeof(float));
            if (rp_rays_prepare(&x->r) != RP_OK) {
                std::fprintf(stderr, "rp_bench: rp_rays_prepare failed\n");
                std::exit(1);
            }
        }
    }
};

struct V3 {
    float x, y, z;
};
V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V3 operator*(float s, V3 a) { return {s * a.x, s * a.y, s * a.z}; }
float dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
V3 norm(V3 a) { return (1.0f / std::sqrt(dot(a, a))) * a; }

uint64_t g_rng;
float frand() { // xorshift64*, 24 bits, [0, 1)
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (float)((g_rng * 0x2545F4914F6CDD1Dull) >> 40) * (1.0f / 16777216.0f);
}

enum Kind { BUILD, PRIMARY, SHADOW, DIFFUSE, KIND_COUNT };
const char *const kKindName[KIND_COUNT] = {"build", "primary", "shadow", "diffuse"};

#ifdef RPB_HAVE_EMBREE
struct Embree {
    RTCDevice dev = nullptr;
    RTCScene scene = nullptr;
    std::vector<float> vb; // the vertices, padded (Embree reads 16 bytes per vertex)
    std::atomic<long long> mem{0};
    long long bvh_bytes = 0;
    ~Embree() {
        if (scene)
            rtcReleaseScene(scene);
        if (dev)
            rtcReleaseDevice(dev);
    }
};

bool monitor(void *user, ssize_t bytes, bool) {
    static_cast<Embree *>(user)->mem += bytes;
    return true;
}

// A one-thread device; nullptr (message on stderr) on failure.
std::unique_ptr<Embree> embree_device(const Mesh &m) {
    std::unique_ptr<Embree> e(new Embree);
    e->dev = rtcNewDevice("threads=1");
    if (!e->dev) {
        std::fprintf(stderr, "rp_bench: rtcNewDevice failed (%d)\n", (int)rtcGetDeviceError(nullptr));
        return nullptr;
    }
    rtcSetDeviceMemoryMonitorFunction(e->dev, monitor, e.get());
    e->vb.assign(m.xyz.begin(), m.xyz.end());
    e->vb.push_back(0.0f);
    return e;
}

// A new scene over m (shared buffers), committed; the time of
// rtcCommitScene alone goes to *secs when timing (the state's clock is
// paused around the rest).  Returns the scene or nullptr.
RTCScene embree_scene(Embree &e, const Mesh &m, RTCBuildQuality q, bool robust,
                      benchmark::State *timing) {
    if (timing)
        timing->PauseTiming();
    RTCScene s = rtcNewScene(e.dev);
    rtcSetSceneFlags(s, robust ? RTC_SCENE_FLAG_ROBUST : RTC_SCENE_FLAG_NONE);
    rtcSetSceneBuildQuality(s, q);
    RTCGeometry g = rtcNewGeometry(e.dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, e.vb.data(), 0,
                               3 * sizeof(float), m.nverts());
    rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, m.idx.data(), 0,
                               3 * sizeof(uint32_t), m.ntris());
    rtcCommitGeometry(g);
    rtcAttachGeometry(s, g);
    rtcReleaseGeometry(g);
    long long before = e.mem.load();
    if (timing)
        timing->ResumeTiming();
    rtcCommitScene(s);
    if (timing)
        timing->PauseTiming();
    e.bvh_bytes = e.mem.load() - before;
    enum RTCError err = rtcGetDeviceError(e.dev);
    if (timing)
        timing->ResumeTiming();
    if (err != RTC_ERROR_NONE) {
        std::fprintf(stderr, "rp_bench: Embree scene build failed (%d)\n", (int)err);
        rtcReleaseScene(s);
        return nullptr;
    }
    return s;
}

double embree_bytes_per_tri(const Embree &e, const Mesh &m) {
    return ((double)e.bvh_bytes + 12.0 * (double)m.nverts() + 12.0 * (double)m.ntris()) /
           (double)m.ntris();
}
#endif

// Everything the trace rows of one mesh share: the built raypack scene,
// the rays, raypack's primary hits, the Embree scene when first needed.
struct SceneState {
    std::string name;
    const Mesh *mesh = nullptr;
    rp_scene *scene = nullptr;
    double bytes_per_tri = 0;
    RaySet rays[KIND_COUNT]; // PRIMARY, SHADOW, DIFFUSE
    std::vector<uint32_t> primary_prim; // raypack's primary hits (setup)
    bool raypack_ran[KIND_COUNT] = {};   // the batches hold a raypack result
    bool diff_printed[KIND_COUNT] = {};
    // of the first raypack row's results, and its variant: [kind] watertight,
    // [KIND_COUNT + kind] Moller-Trumbore
    uint64_t digest[2 * KIND_COUNT] = {};
    std::string digest_from[2 * KIND_COUNT];
#ifdef RPB_HAVE_EMBREE
    std::unique_ptr<Embree> emb;
    std::unique_ptr<Embree> emb_high; // the HIGH scene (embree-high rows), when first needed
    std::vector<uint32_t> emb_prim[KIND_COUNT]; // Embree's primID / occluded
#endif
    ~SceneState() { rp_scene_free(scene); }
};

std::unique_ptr<SceneState> g_state; // the last mesh's (one at a time: memory)

SceneState *get_state(const std::string &name, std::string *err) {
    if (g_state && g_state->name == name)
        return g_state.get();
    g_state.reset();
    const Mesh *m = get_mesh(name, err);
    if (!m)
        return nullptr;
    std::unique_ptr<SceneState> s(new SceneState);
    s->name = name;
    s->mesh = m;
    rp_status st = rp_scene_create(&s->scene);
    if (!st)
        st = rp_scene_add_mesh(s->scene, m->xyz.data(), m->nverts(), m->idx.data(), m->ntris(), nullptr);
    if (!st)
        st = rp_scene_build(s->scene);
    if (st) {
        *err = std::string("rp_scene: ") + rp_status_string(st);
        return nullptr;
    }
    s->bytes_per_tri = (double)rp_scene_bytes(s->scene) / (double)m->ntris();

    // camera: framed on the bounding sphere of the mesh's box
    V3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < m->nverts(); v++) {
        const float *q = &m->xyz[3 * v];
        lo = {std::fmin(lo.x, q[0]), std::fmin(lo.y, q[1]), std::fmin(lo.z, q[2])};
        hi = {std::fmax(hi.x, q[0]), std::fmax(hi.y, q[1]), std::fmax(hi.z, q[2])};
    }
    V3 c = 0.5f * (lo + hi);
    float R = 0.5f * std::sqrt(dot(hi - lo, hi - lo));
    float dist = 2.5f * R;
    V3 fwd = norm(V3{-0.3f, -0.2f, -1.0f});
    V3 eye = c - dist * fwd;
    V3 right = norm(cross(fwd, V3{0, 1, 0}));
    V3 up = cross(right, fwd);
    float tanh = 0; // the half-angle that holds the box's 8 corners
    for (int k = 0; k < 8; k++) {
        V3 q = {k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z};
        V3 v = q - eye;
        float z = dot(v, fwd);
        tanh = std::fmax(tanh, std::fmax(std::fabs(dot(v, right)), std::fabs(dot(v, up))) / z);
    }
    V3 light = c + R * 1.0f * V3{2.0f, 3.0f, 2.5f};
    float eps = 1e-4f * R; // tmin of the secondary rays (their directions are unit)

    RaySet &P = s->rays[PRIMARY];
    for (int ty = 0; ty < g_res / kTile; ty++)
        for (int tx = 0; tx < g_res / kTile; tx++) {
            Batch *b = P.add(kBatch);
            size_t i = 0;
            for (int y = ty * kTile; y < (ty + 1) * kTile; y++)
                for (int x = tx * kTile; x < (tx + 1) * kTile; x++, i++) {
                    float sx = ((x + 0.5f) / g_res * 2 - 1) * tanh;
                    float sy = (1 - (y + 0.5f) / g_res * 2) * tanh;
                    V3 d = norm(fwd + sx * right + sy * up);
                    b->r.ox[i] = eye.x; b->r.oy[i] = eye.y; b->r.oz[i] = eye.z;
                    b->r.dx[i] = d.x; b->r.dy[i] = d.y; b->r.dz[i] = d.z;
                    b->r.tmin[i] = 0.0f;
                    b->r.tmax[i] = INFINITY;
                }
        }
    P.prepare();
    // raypack's primary hits (the automatic variant: the same bits in all)
    rp_set_isa(RP_ISA_AUTO);
    RaySet &S = s->rays[SHADOW], &D = s->rays[DIFFUSE];
    Batch *sb = nullptr, *db = nullptr;
    size_t si = 0, nhit = 0;
    g_rng = 0x9E3779B97F4A7C15ull;
    for (auto &bp : P.b) {
        Batch &b = *bp;
        rp_hits_reset(&b.h);
        st = rp_scene_closest(s->scene, &b.r, nullptr, kFlags, &b.h, nullptr);
        if (st) {
            *err = std::string("rp_scene_closest: ") + rp_status_string(st);
            return nullptr;
        }
        for (size_t i = 0; i < b.r.n; i++) {
            s->primary_prim.push_back(b.h.prim[i]);
            if (b.h.prim[i] == RP_NO_HIT)
                continue;
            nhit++;
            if (!sb || si == kBatch) {
                sb = S.add(kBatch);
                db = D.add(kBatch);
                si = 0;
            }
            V3 o = {b.r.ox[i], b.r.oy[i], b.r.oz[i]}, d = {b.r.dx[i], b.r.dy[i], b.r.dz[i]};
            V3 p = o + b.h.t[i] * d;
            const uint32_t *t = &m->idx[3 * (size_t)b.h.prim[i]];
            V3 v0 = {m->xyz[3 * t[0]], m->xyz[3 * t[0] + 1], m->xyz[3 * t[0] + 2]};
            V3 v1 = {m->xyz[3 * t[1]], m->xyz[3 * t[1] + 1], m->xyz[3 * t[1] + 2]};
            V3 v2 = {m->xyz[3 * t[2]], m->xyz[3 * t[2] + 1], m->xyz[3 * t[2] + 2]};
            V3 n = norm(cross(v1 - v0, v2 - v0));
            if (dot(n, d) > 0)
                n = -1.0f * n;
            // shadow: unit direction to the light, tmax = its distance
            V3 l = light - p;
            float ld = std::sqrt(dot(l, l));
            l = (1.0f / ld) * l;
            sb->r.ox[si] = p.x; sb->r.oy[si] = p.y; sb->r.oz[si] = p.z;
            sb->r.dx[si] = l.x; sb->r.dy[si] = l.y; sb->r.dz[si] = l.z;
            sb->r.tmin[si] = eps;
            sb->r.tmax[si] = ld;
            // diffuse: cosine-weighted about the normal facing the camera
            V3 a = std::fabs(n.x) > 0.5f ? V3{0, 1, 0} : V3{1, 0, 0};
            V3 tu = norm(cross(a, n)), tv = cross(n, tu);
            float r1 = frand(), r2 = frand();
            float phi = 6.2831853f * r1, sr = std::sqrt(r2);
            V3 w = norm(sr * std::cos(phi) * tu + sr * std::sin(phi) * tv + std::sqrt(1 - r2) * n);
            db->r.ox[si] = p.x; db->r.oy[si] = p.y; db->r.oz[si] = p.z;
            db->r.dx[si] = w.x; db->r.dy[si] = w.y; db->r.dz[si] = w.z;
            db->r.tmin[si] = eps;
            db->r.tmax[si] = INFINITY;
            si++;
        }
    }
    if (sb && si < kBatch) { // the last batch: shrink n to what is filled
        for (RaySet *rs : {&S, &D}) {
            Batch &lb = *rs->b.back();
            rs->n -= kBatch - si;
            lb.r.n = si;
            lb.h.n = si;
            lb.tmax0.resize(si);
            lb.occl.resize(si);
        }
    }
    S.prepare();
    D.prepare();
    s->raypack_ran[PRIMARY] = true;
    std::fprintf(stderr,
                 "rp_bench: scene %s: %dx%d primary rays, %zu hit (%.1f%%): %zu shadow and %zu "
                 "diffuse rays; raypack %.1f bytes/triangle\n",
                 name.c_str(), g_res, g_res, nhit, 100.0 * nhit / P.n, S.n, D.n, s->bytes_per_tri);
    g_state = std::move(s);
    return g_state.get();
}

// ---------------------------------------------------------------- rows
enum Impl { RAYPACK, EMBREE, EMBREE_HIGH, EMBREE16 };

struct Row {
    Impl impl;
    rp_isa isa; // RAYPACK (RP_ISA_AUTO: the automatic choice)
    Kind kind;
    std::string mesh;
    std::string variant;
    unsigned hint; // RAYPACK: 0, RP_COHERENT or RP_INCOHERENT
    unsigned flags = kFlags; // RAYPACK: the query's test (0: Moller-Trumbore)
    unsigned threads = 1;    // RAYPACK build: rp_scene_set_build_threads (> 1: timed by the wall clock)
};

void fail(benchmark::State &state, const std::string &msg) {
    state.SkipWithError(msg.c_str());
    for (auto _ : state) {
    }
}

// The timed work of a row: raypack_trace, embree_trace and embree_trace16
// are kept out of line (RPB_TIMED) so that bench/instr.sh can switch
// callgrind's counting on inside them alone; one call per iteration.
#if defined(__GNUC__)
#define RPB_TIMED __attribute__((noinline))
#else
#define RPB_TIMED
#endif

RPB_TIMED rp_status raypack_trace(SceneState &s, Kind k, unsigned flags) {
    rp_status st = RP_OK;
    for (auto &bp : s.rays[k].b) {
        Batch &b = *bp;
        if (k == SHADOW) {
            std::memset(b.occl.data(), 0, b.r.n);
            st = rp_scene_occluded(s.scene, &b.r, nullptr, flags, b.occl.data());
        } else {
            std::memcpy(b.r.tmax, b.tmax0.data(), b.r.n * sizeof(float));
            if ((st = rp_hits_reset(&b.h)) == RP_OK)
                st = rp_scene_closest(s.scene, &b.r, nullptr, flags, &b.h, nullptr);
        }
        if (st)
            break;
    }
    return st;
}

// Order-dependent digest of raypack's last results for kind k (prim and t
// bits; occluded flags for shadow): every variant must give the same.
uint64_t raypack_digest(const SceneState &s, Kind k) {
    uint64_t d = 0x243F6A8885A308D3ull;
    for (auto &bp : s.rays[k].b) {
        const Batch &b = *bp;
        for (size_t i = 0; i < b.r.n; i++) {
            uint64_t v;
            if (k == SHADOW) {
                v = b.occl[i];
            } else {
                uint32_t tb;
                std::memcpy(&tb, &b.h.t[i], 4);
                v = (uint64_t)b.h.prim[i] << 32 | tb;
            }
            d = (d ^ v) * 0x100000001B3ull;
            d ^= d >> 29;
        }
    }
    return d;
}

#ifdef RPB_HAVE_EMBREE
// rtcIntersect1 / rtcOccluded1 on scene sc over the same batches; results
// to out (primID or RP_NO_HIT; 1/0 for shadow).
RPB_TIMED void embree_trace(SceneState &s, RTCScene sc, Kind k, uint32_t *out) {
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    size_t j = 0;
    for (auto &bp : s.rays[k].b) {
        const Batch &b = *bp;
        const rp_rays &r = b.r;
        for (size_t i = 0; i < r.n; i++, j++) {
            if (k == SHADOW) {
                struct RTCRay ray;
                ray.org_x = r.ox[i]; ray.org_y = r.oy[i]; ray.org_z = r.oz[i];
                ray.dir_x = r.dx[i]; ray.dir_y = r.dy[i]; ray.dir_z = r.dz[i];
                ray.tnear = r.tmin[i];
                ray.tfar = b.tmax0[i];
                ray.time = 0.0f;
                ray.mask = 0xFFFFFFFFu;
                ray.id = 0;
                ray.flags = 0;
                rtcOccluded1(sc, &ctx, &ray);
                out[j] = ray.tfar == -INFINITY;
            } else {
                struct RTCRayHit rh;
                rh.ray.org_x = r.ox[i]; rh.ray.org_y = r.oy[i]; rh.ray.org_z = r.oz[i];
                rh.ray.dir_x = r.dx[i]; rh.ray.dir_y = r.dy[i]; rh.ray.dir_z = r.dz[i];
                rh.ray.tnear = r.tmin[i];
                rh.ray.tfar = b.tmax0[i];
                rh.ray.time = 0.0f;
                rh.ray.mask = 0xFFFFFFFFu;
                rh.ray.id = 0;
                rh.ray.flags = 0;
                rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
                rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
                rtcIntersect1(sc, &ctx, &rh);
                out[j] = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID ? rh.hit.primID : RP_NO_HIT;
            }
        }
    }
}

// The same with rtcIntersect16 / rtcOccluded16 on 16 consecutive rays of a
// batch (a 16x1 strip of a tile for primary rays; the last packet of a
// batch masked), with the coherent-rays hint for primary and shadow rays.
RPB_TIMED void embree_trace16(SceneState &s, Kind k, uint32_t *out) {
    RTCScene sc = s.emb->scene;
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    ctx.flags = k == DIFFUSE ? RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT : RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
    size_t j = 0;
    for (auto &bp : s.rays[k].b) {
        const Batch &b = *bp;
        const rp_rays &r = b.r;
        for (size_t i0 = 0; i0 < r.n; i0 += 16) {
            int m = (int)(r.n - i0 < 16 ? r.n - i0 : 16);
            RTC_ALIGN(64) int valid[16];
            RTC_ALIGN(64) struct RTCRayHit16 rh;
            struct RTCRay16 &ray = rh.ray;
            for (int q = 0; q < 16; q++) {
                size_t i = i0 + (size_t)(q < m ? q : 0);
                valid[q] = q < m ? -1 : 0;
                ray.org_x[q] = r.ox[i]; ray.org_y[q] = r.oy[i]; ray.org_z[q] = r.oz[i];
                ray.dir_x[q] = r.dx[i]; ray.dir_y[q] = r.dy[i]; ray.dir_z[q] = r.dz[i];
                ray.tnear[q] = r.tmin[i];
                ray.tfar[q] = b.tmax0[i];
                ray.time[q] = 0.0f;
                ray.mask[q] = 0xFFFFFFFFu;
                ray.id[q] = 0;
                ray.flags[q] = 0;
                rh.hit.geomID[q] = RTC_INVALID_GEOMETRY_ID;
                rh.hit.instID[0][q] = RTC_INVALID_GEOMETRY_ID;
            }
            if (k == SHADOW) {
                rtcOccluded16(valid, sc, &ctx, &ray);
                for (int q = 0; q < m; q++)
                    out[j + q] = ray.tfar[q] == -INFINITY;
            } else {
                rtcIntersect16(valid, sc, &ctx, &rh);
                for (int q = 0; q < m; q++)
                    out[j + q] = rh.hit.geomID[q] != RTC_INVALID_GEOMETRY_ID ? rh.hit.primID[q] : RP_NO_HIT;
            }
            j += (size_t)m;
        }
    }
}

// Once per mesh and kind: how many rays' hits differ between raypack and Embree.
void print_diff(SceneState &s, Kind k) {
    if (s.diff_printed[k] || !s.raypack_ran[k])
        return;
    s.diff_printed[k] = true;
    const std::vector<uint32_t> &e = s.emb_prim[k];
    size_t j = 0, both = 0, prim = 0, only_rp = 0, only_emb = 0;
    for (auto &bp : s.rays[k].b) {
        const Batch &b = *bp;
        for (size_t i = 0; i < b.r.n; i++, j++) {
            uint32_t rp = k == PRIMARY ? s.primary_prim[j] : k == SHADOW ? b.occl[i] : b.h.prim[i];
            int hr = k == SHADOW ? rp != 0 : rp != RP_NO_HIT;
            int he = k == SHADOW ? e[j] != 0 : e[j] != RP_NO_HIT;
            both += hr && he;
            only_rp += hr && !he;
            only_emb += !hr && he;
            prim += hr && he && rp != e[j];
        }
    }
    if (k == SHADOW)
        std::fprintf(stderr,
                     "rp_bench: scene %s shadow: %zu rays, occluded by both %zu, raypack only %zu, "
                     "Embree only %zu\n",
                     s.name.c_str(), j, both, only_rp, only_emb);
    else
        std::fprintf(stderr,
                     "rp_bench: scene %s %s: %zu rays, hit by both %zu (different prim %zu), "
                     "raypack only %zu, Embree only %zu\n",
                     s.name.c_str(), kKindName[k], j, both, prim, only_rp, only_emb);
}
#endif

void run_build(benchmark::State &state, const Row &row) {
    std::string err;
    g_state.reset(); // one mesh's state at a time
    const Mesh *m = get_mesh(row.mesh, &err);
    if (!m)
        return fail(state, err);
    double bytes = 0;
    if (row.impl == RAYPACK) {
        if (rp_status st = rp_set_isa(row.isa))
            return fail(state, std::string("rp_set_isa: ") + rp_status_string(st));
        for (auto _ : state) {
            state.PauseTiming();
            rp_scene *s = nullptr;
            rp_status st = rp_scene_create(&s);
            if (!st)
                st = rp_scene_set_build_threads(s, row.threads);
            if (!st)
                st = rp_scene_add_mesh(s, m->xyz.data(), m->nverts(), m->idx.data(), m->ntris(), nullptr);
            state.ResumeTiming();
            if (!st)
                st = rp_scene_build(s);
            state.PauseTiming();
            bytes = (double)rp_scene_bytes(s);
            rp_scene_free(s);
            state.ResumeTiming();
            if (st) {
                state.SkipWithError(rp_status_string(st));
                break;
            }
        }
        state.SetLabel(std::string("rp_scene_build, isa ") + rp_isa_name(rp_active_isa()) +
                       (row.threads > 1 ? ", " + std::to_string(row.threads) + " threads, wall time"
                                        : std::string()));
        rp_set_isa(RP_ISA_AUTO);
    }
#ifdef RPB_HAVE_EMBREE
    else {
        std::unique_ptr<Embree> e = embree_device(*m);
        if (!e)
            return fail(state, "rtcNewDevice failed");
        RTCBuildQuality q = row.impl == EMBREE_HIGH ? RTC_BUILD_QUALITY_HIGH : RTC_BUILD_QUALITY_MEDIUM;
        for (auto _ : state) {
            RTCScene s = embree_scene(*e, *m, q, row.impl == EMBREE, &state);
            if (!s) {
                state.SkipWithError("Embree scene build failed");
                break;
            }
            state.PauseTiming();
            rtcReleaseScene(s);
            state.ResumeTiming();
        }
        bytes = embree_bytes_per_tri(*e, *m) * (double)m->ntris();
        state.counters["bvh_bytes_per_tri"] = (double)e->bvh_bytes / (double)m->ntris();
        state.SetLabel(std::string("Embree " RTC_VERSION_STRING " rtcCommitScene, ") +
                       (row.impl == EMBREE_HIGH ? "HIGH (not robust: Embree 3 ignores HIGH for robust scenes)"
                                                : "MEDIUM, robust") +
                       ", 1 thread");
    }
#endif
    double iters = (double)state.iterations();
    state.SetItemsProcessed((int64_t)(iters * (double)m->ntris()));
    state.counters["Mtris_per_s"] =
        benchmark::Counter(iters * (double)m->ntris() * 1e-6, benchmark::Counter::kIsRate);
    state.counters["bytes_per_tri"] = bytes / (double)m->ntris();
    state.counters["triangles"] = (double)m->ntris();
}

#ifdef RPB_HAVE_EMBREE
// The mesh's Embree scene (high: the HIGH build, not robust; else MEDIUM,
// robust), built on first use and kept with the mesh's state.
Embree *embree_of(SceneState &s, bool high, std::string *err) {
    std::unique_ptr<Embree> &emb = high ? s.emb_high : s.emb;
    if (!emb) {
        std::unique_ptr<Embree> e = embree_device(*s.mesh);
        if (!e) {
            *err = "rtcNewDevice failed";
            return nullptr;
        }
        e->scene = embree_scene(*e, *s.mesh, high ? RTC_BUILD_QUALITY_HIGH : RTC_BUILD_QUALITY_MEDIUM,
                                !high, nullptr);
        if (!e->scene) {
            *err = "Embree scene build failed";
            return nullptr;
        }
        emb = std::move(e);
    }
    return emb.get();
}
#endif

// raypack's last results for row against the first raypack row's of the
// same kind and test (its digest, kept in s): "" when they agree, or a
// note for the row's label (and a line on stderr) when they differ.
std::string check_digest(SceneState &s, const Row &row) {
    uint64_t d = raypack_digest(s, row.kind);
    int dk = row.kind + ((row.flags & RP_WATERTIGHT) ? 0 : KIND_COUNT);
    if (s.digest_from[dk].empty()) {
        s.digest[dk] = d;
        s.digest_from[dk] = row.variant;
        return "";
    }
    if (d == s.digest[dk])
        return "";
    std::fprintf(stderr, "rp_bench: scene %s %s: variant %s's results differ from %s's\n",
                 row.mesh.c_str(), kKindName[row.kind], row.variant.c_str(), s.digest_from[dk].c_str());
    return "; RESULTS DIFFER from " + s.digest_from[dk];
}

// A raypack trace row's query, for its label: the call, the test and the
// hint.
std::string query_label(const Row &row) {
    return std::string(row.kind == SHADOW ? "rp_scene_occluded" : "rp_scene_closest") +
           ((row.flags & RP_WATERTIGHT) ? " watertight" : " Moller-Trumbore") +
           (row.hint == RP_COHERENT     ? " RP_COHERENT (packets)"
            : row.hint == RP_INCOHERENT ? " RP_INCOHERENT (one ray at a time)"
                                        : "");
}

void run_trace(benchmark::State &state, const Row &row) {
    std::string err;
    SceneState *s = get_state(row.mesh, &err);
    if (!s)
        return fail(state, err);
    size_t nrays = s->rays[row.kind].n;
    if (row.impl == RAYPACK) {
        if (rp_status st = rp_set_isa(row.isa))
            return fail(state, std::string("rp_set_isa: ") + rp_status_string(st));
        for (auto _ : state) {
            rp_status st = raypack_trace(*s, row.kind, row.flags | row.hint);
            if (st) {
                state.SkipWithError(rp_status_string(st));
                break;
            }
            benchmark::ClobberMemory();
        }
        s->raypack_ran[row.kind] = true;
        state.counters["bytes_per_tri"] = s->bytes_per_tri;
        std::string check;
        if (state.iterations() > 0)
            check = check_digest(*s, row);
        state.SetLabel(query_label(row) + ", 4096-ray batches, isa " + rp_isa_name(rp_active_isa()) +
                       check);
        rp_set_isa(RP_ISA_AUTO);
    }
#ifdef RPB_HAVE_EMBREE
    else {
        bool high = row.impl == EMBREE_HIGH;
        Embree *emb = embree_of(*s, high, &err);
        if (!emb)
            return fail(state, err);
        // (the HIGH scene's results are not kept: print_diff compares the robust one's)
        std::vector<uint32_t> high_out;
        std::vector<uint32_t> &out = high ? high_out : s->emb_prim[row.kind];
        out.assign(nrays, 0);
        for (auto _ : state) {
            if (row.impl == EMBREE16)
                embree_trace16(*s, row.kind, out.data());
            else
                embree_trace(*s, emb->scene, row.kind, out.data());
            benchmark::ClobberMemory();
        }
        if (row.impl == EMBREE)
            print_diff(*s, row.kind);
        state.counters["bytes_per_tri"] = embree_bytes_per_tri(*emb, *s->mesh);
        state.counters["bvh_bytes_per_tri"] = (double)emb->bvh_bytes / (double)s->mesh->ntris();
        state.SetLabel(std::string("Embree " RTC_VERSION_STRING " ") +
                       (row.kind == SHADOW ? "rtcOccluded" : "rtcIntersect") +
                       (row.impl == EMBREE16 ? (row.kind == DIFFUSE ? "16, incoherent" : "16, coherent") : "1") +
                       (high ? ", not robust, HIGH, 1 thread" : ", robust, MEDIUM, 1 thread"));
    }
#endif
    double iters = (double)state.iterations();
    state.SetItemsProcessed((int64_t)(iters * (double)nrays));
    state.counters["Mrays_per_s"] =
        benchmark::Counter(iters * (double)nrays * 1e-6, benchmark::Counter::kIsRate);
    state.counters["rays"] = (double)nrays;
}

// scene-pair/<variant>/<peer>/<kind>/<mesh>: raypack's row (isa, hint and
// flags of row) and Embree's (peer) in turns, one trace of each per
// iteration, raypack first on even iterations and Embree first on odd ones,
// each timed by this thread's CPU clock.  Counters: ratio (Embree's time
// over raypack's, the sums over the iterations: > 1 when raypack is
// faster), ratio_min and ratio_max (the same for each iteration alone, the
// spread), rp_Mrays_per_s and peer_Mrays_per_s.  The iteration's own time
// is both traces.
#ifdef RPB_HAVE_EMBREE
void run_pair(benchmark::State &state, const Row &row, Impl peer) {
    std::string err;
    SceneState *s = get_state(row.mesh, &err);
    if (!s)
        return fail(state, err);
    Embree *emb = embree_of(*s, peer == EMBREE_HIGH, &err);
    if (!emb)
        return fail(state, err);
    if (rp_status st = rp_set_isa(row.isa))
        return fail(state, std::string("rp_set_isa: ") + rp_status_string(st));
    size_t nrays = s->rays[row.kind].n;
    std::vector<uint32_t> out(nrays, 0); // (Embree's results: not kept)
    double t_rp = 0.0, t_peer = 0.0, rmin = INFINITY, rmax = 0.0;
    int64_t it = 0;
    rp_status st = RP_OK;
    for (auto _ : state) {
        double tr = 0.0, tp = 0.0;
        for (int half = 0; half < 2; half++) {
            double t0 = rpb_thread_cpu();
            if ((half ^ (int)(it & 1)) == 0) {
                st = raypack_trace(*s, row.kind, row.flags | row.hint);
                tr = rpb_thread_cpu() - t0;
            } else {
                embree_trace(*s, emb->scene, row.kind, out.data());
                tp = rpb_thread_cpu() - t0;
            }
            benchmark::ClobberMemory();
        }
        if (st) {
            state.SkipWithError(rp_status_string(st));
            break;
        }
        it++;
        t_rp += tr;
        t_peer += tp;
        if (tr > 0.0) {
            rmin = std::min(rmin, tp / tr);
            rmax = std::max(rmax, tp / tr);
        }
    }
    std::string check;
    if (it > 0 && !st)
        check = check_digest(*s, row);
    rp_set_isa(RP_ISA_AUTO);
    if (it == 0 || t_rp <= 0.0 || t_peer <= 0.0)
        return;
    double rays = (double)it * (double)nrays;
    state.counters["ratio"] = t_peer / t_rp;
    state.counters["ratio_min"] = rmin;
    state.counters["ratio_max"] = rmax;
    state.counters["rp_Mrays_per_s"] = rays * 1e-6 / t_rp;
    state.counters["peer_Mrays_per_s"] = rays * 1e-6 / t_peer;
    state.counters["rays"] = (double)nrays;
    state.SetLabel(query_label(row) + ", isa " + rp_isa_name(row.isa) +
                   " against Embree " RTC_VERSION_STRING " rtc" +
                   (row.kind == SHADOW ? "Occluded1" : "Intersect1") +
                   (peer == EMBREE_HIGH ? ", not robust, HIGH" : ", robust, MEDIUM") +
                   ", in turns" + check);
}
#endif

// scene/auto/normals/<mesh>: rp_scene_normals on the primary rays' hits (a
// renderer's next call after rp_scene_closest), batch by batch; the records
// come from one watertight primary trace before the timing.  Items are
// hits; counter Mhits_per_s.  (The routine is not dispatched: one row.)
void run_normals(benchmark::State &state, const std::string &mesh) {
    std::string err;
    SceneState *s = get_state(mesh, &err);
    if (!s)
        return fail(state, err);
    if (rp_status st = raypack_trace(*s, PRIMARY, RP_WATERTIGHT))
        return fail(state, std::string("rp_scene_closest: ") + rp_status_string(st));
    s->raypack_ran[PRIMARY] = true;
    size_t nhits = 0;
    for (auto &bp : s->rays[PRIMARY].b)
        for (size_t i = 0; i < bp->r.n; i++)
            nhits += bp->h.prim[i] != RP_NO_HIT;
    for (auto _ : state) {
        for (auto &bp : s->rays[PRIMARY].b)
            if (rp_status st = rp_scene_normals(s->scene, &bp->r, &bp->h, nullptr)) {
                state.SkipWithError(rp_status_string(st));
                return;
            }
        benchmark::ClobberMemory();
    }
    double iters = (double)state.iterations();
    state.SetItemsProcessed((int64_t)(iters * (double)nhits));
    state.counters["Mhits_per_s"] =
        benchmark::Counter(iters * (double)nhits * 1e-6, benchmark::Counter::kIsRate);
    state.counters["hits"] = (double)nhits;
    state.SetLabel("rp_scene_normals on the primary hits, 4096-ray batches");
}

void add(const Row &r) {
    std::string name = "scene/" + r.variant + "/" + kKindName[r.kind] + "/" + r.mesh;
    benchmark::internal::Benchmark *b = benchmark::RegisterBenchmark(name.c_str(), [r](benchmark::State &st) {
        if (r.kind == BUILD)
            run_build(st, r);
        else
            run_trace(st, r);
    });
    b->Unit(benchmark::kMillisecond);
    if (r.threads > 1) // the rate per second of the wall clock, not of this thread's CPU
        b->UseRealTime();
}

#ifdef RPB_HAVE_EMBREE
void add_pair(const Row &r, Impl peer) {
    std::string name = "scene-pair/" + r.variant + "/" + (peer == EMBREE_HIGH ? "embree-high" : "embree") +
                       "/" + kKindName[r.kind] + "/" + r.mesh;
    benchmark::RegisterBenchmark(name.c_str(), [r, peer](benchmark::State &st) {
        run_pair(st, r, peer);
    })->Unit(benchmark::kMillisecond);
}
#endif

bool file_exists(const std::string &p) {
    FILE *f = std::fopen(p.c_str(), "rb");
    if (f)
        std::fclose(f);
    return f != nullptr;
}

}  // namespace

void rpb_scene_args(int *argc, char **argv) {
    const char *env = std::getenv("RP_BENCH_MESH_DIR");
    if (env)
        g_mesh_dir = env;
    int o = 1;
    for (int i = 1; i < *argc; i++) {
        if (!std::strncmp(argv[i], "--rp_mesh_dir=", 14))
            g_mesh_dir = argv[i] + 14;
        else
            argv[o++] = argv[i];
    }
    *argc = o;
    argv[o] = nullptr;
}

void rpb_scene_register(unsigned native) {
    const char *res = std::getenv("RP_BENCH_SCENE_RES");
    if (res) {
        int r = std::atoi(res);
        if (r >= kTile && r % kTile == 0)
            g_res = r;
        else
            std::fprintf(stderr, "rp_bench: RP_BENCH_SCENE_RES=%s is not a multiple of 64: using %d\n",
                         res, g_res);
    }
    g_base = "ico";
    if (!g_mesh_dir.empty()) {
        for (const char *sub : {"/bunny00.off", "/data/meshes/bunny00.off"})
            if (file_exists(g_mesh_dir + sub)) {
                g_off_path = g_mesh_dir + sub;
                g_base = "bunny";
                break;
            }
    }
    if (g_base == "bunny")
        std::fprintf(stderr, "rp_bench: scene rows use %s\n", g_off_path.c_str());
    else
        std::fprintf(stderr,
                     "rp_bench: scene rows: no bunny00.off in %s (set RP_BENCH_MESH_DIR, see "
                     "bench/README.md): using a procedural displaced icosphere (\"ico\", 81,920 "
                     "triangles) instead\n",
                     g_mesh_dir.empty() ? "$RP_BENCH_MESH_DIR (unset)" : g_mesh_dir.c_str());
    benchmark::AddCustomContext("rp_scene_mesh", g_base == "bunny" ? g_off_path : "procedural icosphere");
    benchmark::AddCustomContext("rp_scene_image", std::to_string(g_res) + "x" + std::to_string(g_res));

    std::vector<std::string> meshes = {g_base, g_base + "_x4", g_base + "_x16"};
    const char *x64 = std::getenv("RP_BENCH_SCENE_X64");
    if (!x64 || std::strcmp(x64, "0"))
        meshes.push_back(g_base + "_x64");
    std::vector<std::pair<rp_isa, std::string>> variants;
    for (int v = 0; v < RP_ISA_COUNT; v++)
        if ((native & (1u << v)) || v == RP_ISA_SCALAR)
            variants.push_back({(rp_isa)v, rp_isa_name((rp_isa)v)});
    variants.push_back({RP_ISA_AUTO, "auto"});
    for (const std::string &m : meshes)
        for (int k = 0; k < KIND_COUNT; k++) {
            if (k == BUILD) { // the threaded build (the same tree bytes; baseline-ISA code)
                unsigned hw = std::thread::hardware_concurrency();
                std::vector<unsigned> ts = {2};
                if (hw > 2)
                    ts.push_back(hw);
                for (unsigned t : ts) {
                    Row r{RAYPACK, RP_ISA_AUTO, BUILD, m, "auto-t" + std::to_string(t), 0};
                    r.threads = t;
                    add(r);
                }
            }
            for (auto &v : variants) {
                add({RAYPACK, v.first, (Kind)k, m, v.second, 0});
                if (k != BUILD && v.first != RP_ISA_SCALAR && v.first != RP_ISA_AUTO) {
                    add({RAYPACK, v.first, (Kind)k, m, v.second + "-packet", RP_COHERENT});
                    add({RAYPACK, v.first, (Kind)k, m, v.second + "-ray", RP_INCOHERENT});
                }
            }
#ifdef RPB_HAVE_EMBREE
            add({EMBREE, RP_ISA_AUTO, (Kind)k, m, "embree", 0});
            add({EMBREE_HIGH, RP_ISA_AUTO, (Kind)k, m, "embree-high", 0});
            if (k != BUILD)
                add({EMBREE16, RP_ISA_AUTO, (Kind)k, m, "embree-p16", 0});
#endif
            // Moller-Trumbore after Embree's rows (whose diff line compares
            // with the watertight results left in the batches)
            for (auto &v : variants)
                if (k != BUILD && v.first != RP_ISA_SCALAR && v.first != RP_ISA_AUTO)
                    add({RAYPACK, v.first, (Kind)k, m, v.second + "-mt", 0, 0});
        }
#ifdef RPB_HAVE_EMBREE
    // the pairs: packets and one ray at a time against rtcIntersect1 on the
    // robust scene, Moller-Trumbore packets against the HIGH scene
    for (const std::string &m : meshes)
        for (int k = PRIMARY; k < KIND_COUNT; k++)
            for (auto &v : variants) {
                if (v.first == RP_ISA_SCALAR || v.first == RP_ISA_AUTO)
                    continue;
                add_pair({RAYPACK, v.first, (Kind)k, m, v.second, 0}, EMBREE);
                add_pair({RAYPACK, v.first, (Kind)k, m, v.second + "-ray", RP_INCOHERENT}, EMBREE);
                add_pair({RAYPACK, v.first, (Kind)k, m, v.second + "-mt", 0, 0}, EMBREE_HIGH);
            }
#endif
    for (const std::string &m : meshes)
        benchmark::RegisterBenchmark(("scene/auto/normals/" + m).c_str(), [m](benchmark::State &st) {
            run_normals(st, m);
        })->Unit(benchmark::kMillisecond);
}
