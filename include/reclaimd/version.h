/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * version.h - the version both programs print (reclaimd, reclaimctl), and the version of the
 * status socket's documents: a reclaimctl refuses a daemon whose protocol differs from its own.
 */
#ifndef RECLAIMD_VERSION_H
#define RECLAIMD_VERSION_H

#ifndef RECLAIMD_VERSION
#define RECLAIMD_VERSION "0.1.0"
#endif

/* Bumped when a field of io.reclaimd's replies changes meaning or goes away (new fields do not
 * bump it). */
#define RECLAIMD_STATUS_PROTOCOL 1

#endif
