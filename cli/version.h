/*
 * version.h: parplan's version string.
 *
 * The version is a compile-time define of the library (CMake's
 * PROJECT_VERSION); front ends ask for it here instead of needing the define
 * themselves.
 */
#ifndef PARPLAN_VERSION_H
#define PARPLAN_VERSION_H

/* "0.1.0" */
const char *pp_version(void);

#endif
