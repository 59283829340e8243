/*
 * header_body.h - the body shared by the two header tests
 * (test_header_c99.c, test_header_cpp.cpp): a few calls through nothing but
 * raypack.h, written in the common subset of C99 and C++ (no designated
 * initializers, no compound literals, casts from void * spelled out).
 * raypack.h must already be included, first and alone, by the includer.
 */
#ifndef RP_TESTS_HEADER_BODY_H
#define RP_TESTS_HEADER_BODY_H

#include "tap.h"

static inline int header_body(const char *lang) {
    rp_rays rays;
    rp_hits hits;
    rp_aabb box;
    rp_sphere sp;
    rp_vec3 o, d, nrm;
    rp_isa isa = RP_ISA_AUTO;
    int hit = -1;
    float t = -1.0f;
    uint8_t h8[2] = {9, 9};

    tap_diag("raypack.h %d.%d.%d compiled as %s", RP_VERSION_MAJOR, RP_VERSION_MINOR,
             RP_VERSION_PATCH, lang);
    tap_ok(rp_status_string(RP_ERR_ALIAS) != NULL, "%s: rp_status_string", lang);
    tap_ok(rp_isa_from_name("scalar", &isa) == RP_OK && isa == RP_ISA_SCALAR,
           "%s: rp_isa_from_name", lang);
    tap_ok((rp_isa_compiled() & 1u) != 0 && rp_isa_name(rp_active_isa()) != NULL,
           "%s: rp_isa_compiled, rp_active_isa, rp_isa_name", lang);

    box.min.x = box.min.y = box.min.z = 0.5f;
    box.max.x = box.max.y = box.max.z = 2.0f;
    o.x = o.y = o.z = -2.0f;
    d.x = d.y = d.z = 2.0f;
    tap_ok(rp_raycast_aabb(o, d, &box, &hit, &t, &nrm) == RP_OK && hit == 1 && t == 1.25f &&
               nrm.x == -1.0f, "%s: rp_raycast_aabb (seed 000 ray 0)", lang);

    if (rp_rays_alloc(2, &rays) != RP_OK || rp_hits_alloc(2, &hits) != RP_OK) {
        tap_ok(0, "%s: rp_rays_alloc / rp_hits_alloc", lang);
        return tap_done();
    }
    rays.ox[0] = -2.0f; rays.oy[0] = -2.0f; rays.oz[0] = -2.0f;
    rays.dx[0] = 2.0f; rays.dy[0] = 2.0f; rays.dz[0] = 2.0f;
    rays.ox[1] = 0.0f; rays.oy[1] = 0.0f; rays.oz[1] = 0.0f;
    rays.dx[1] = -1.0f;
    tap_ok(rp_rays_prepare(&rays) == RP_OK, "%s: rp_rays_prepare", lang);
    tap_ok(rp_intersect_aabb(&rays, NULL, &box, h8, NULL, NULL) == RP_OK && h8[0] == 1 && h8[1] == 0,
           "%s: rp_intersect_aabb", lang);
    sp.center.x = 1.25f; sp.center.y = 1.25f; sp.center.z = 1.25f;
    sp.radius = 0.5f;
    tap_ok(rp_closest_sphere(&rays, NULL, &sp, 1, 3, &hits) == RP_OK && hits.prim[0] == 3 &&
               hits.prim[1] == RP_NO_HIT, "%s: rp_closest_sphere", lang);
    tap_ok(rp_hits_normals_sphere(&rays, &hits, &sp, 1, 3) == RP_OK && hits.nx[0] < 0.0f,
           "%s: rp_hits_normals_sphere", lang);
    rp_rays_free(&rays);
    rp_hits_free(&hits);
    tap_ok(rays.ox == NULL && hits.t == NULL, "%s: rp_rays_free, rp_hits_free", lang);
    return tap_done();
}

#endif
