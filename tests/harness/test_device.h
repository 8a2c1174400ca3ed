/*
 * test_device.h - the empty calibration most C tests start from: the
 * workload's calibration of a 48-SM, 1280-block (16 KiB blocks) test device
 * with the given name, to which a test adds its runs.
 */
#ifndef PASCAL_TEST_DEVICE_H
#define PASCAL_TEST_DEVICE_H

#include <stdio.h>

#include "pascal/calibration.h"

static inline void test_device_calibration(pascal_calibration *cal, pascal_workload workload,
                                           const char *device)
{
  pascal_calibration_init(cal, workload);
  snprintf(cal->device.name, sizeof cal->device.name, "%s", device);
  cal->device.sm_count = 48;
  cal->device.capacity_blocks = 1280;
  cal->device.block_bytes = 16384;
}

#endif
