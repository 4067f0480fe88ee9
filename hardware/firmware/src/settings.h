/* settings.h - calibration and counters kept in EEPROM (see settings.c). */
#ifndef SETTINGS_H
#define SETTINGS_H

#include <stdint.h>

#include "board.h"

typedef struct {
    uint16_t magic;
    uint16_t boot_count;
    uint8_t rate_hz;
    int32_t offset[N_CHANNELS]; /* raw counts of the empty channel */
    float scale[N_CHANNELS];    /* raw counts per gram */
    uint16_t crc;
} settings_t;

extern settings_t settings;

/* Load from EEPROM (defaults if blank or corrupt), count this boot, save. */
void settings_load(void);
void settings_save(void);

#endif
