/*
 * normal.h - the geometric normal of a triangle hit: normalize(cross(e1,
 * e2)), negated when the ray sees the triangle's back (the sign of
 * Moller-Trumbore's det, rp_ref_tri_eval's operations).  The one routine
 * behind rp_hits_normals_triangle (geometry.c) and rp_scene_normals
 * (scene/scene.c), so both give the same bits; inline, so that
 * rp_scene_normals' loop over a batch's hits is one loop the core can
 * overlap (as a call per hit, the square root and the division of one hit
 * waited on the previous one's).
 */
#ifndef RP_API_NORMAL_H
#define RP_API_NORMAL_H

#include <math.h>

#include "scalar/ref.h"

static inline rp_vec3 rp_normal_of(const rp_rays *rays, size_t i, const rp_triangle *t) {
    rp_ray1 r = {rays->ox[i], rays->oy[i], rays->oz[i], rays->dx[i], rays->dy[i], rays->dz[i],
                 rays->rdx[i], rays->rdy[i], rays->rdz[i], rays->tmin[i], rays->tmax[i]};
    rp_tri_eval e = rp_ref_tri_eval(&r, t, 0);
    float e1x = t->v1.x - t->v0.x, e1y = t->v1.y - t->v0.y, e1z = t->v1.z - t->v0.z;
    float e2x = t->v2.x - t->v0.x, e2y = t->v2.y - t->v0.y, e2z = t->v2.z - t->v0.z;
    float cx = e1y * e2z - e1z * e2y;
    float cy = e1z * e2x - e1x * e2z;
    float cz = e1x * e2y - e1y * e2x;
    float len = sqrtf(cx * cx + cy * cy + cz * cz);
    float inv = (e.det < 0.0f ? -1.0f : 1.0f) / len;
    rp_vec3 n = {cx * inv, cy * inv, cz * inv};
    return n;
}

#endif
