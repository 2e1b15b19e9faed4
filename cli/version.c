/* version.c: the version string of version.h, from the PARPLAN_VERSION define. */
#include "version.h"

#ifndef PARPLAN_VERSION
#error "PARPLAN_VERSION must be defined by the build (CMakeLists.txt)"
#endif

const char *pp_version(void)
{
    return PARPLAN_VERSION;
}
