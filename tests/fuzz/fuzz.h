/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* The libFuzzer entry point every target defines (replay.c calls it too). */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
