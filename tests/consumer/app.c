/* app.c - a user's program: one ray against one box through the installed
 * or subproject raypack; exits 0 iff the seed-000 ray hits at t = 1.25. */
#include <raypack.h>
#include <stdio.h>

int main(void) {
    rp_aabb box = {{0.5f, 0.5f, 0.5f}, {2.0f, 2.0f, 2.0f}};
    rp_vec3 o = {-2.0f, -2.0f, -2.0f}, d = {2.0f, 2.0f, 2.0f};
    int hit = 0;
    float t = 0.0f;
    if (rp_raycast_aabb(o, d, &box, &hit, &t, NULL) != RP_OK || !hit || t != 1.25f) {
        printf("consumer: unexpected result hit=%d t=%a\n", hit, t);
        return 1;
    }
    printf("consumer: ok (variant %s)\n", rp_isa_name(rp_active_isa()));
    return 0;
}
