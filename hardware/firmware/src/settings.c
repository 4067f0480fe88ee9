/*
 * settings.c - tare offsets, scale factors, sample rate and boot counter in EEPROM.
 *
 * The block carries a magic number and a CRC: a blank chip (all 0xFF) or a
 * write cut short by a power loss falls back to defaults instead of loading
 * garbage scales. eeprom_update_block only rewrites bytes that changed, which
 * spares the EEPROM's 100,000 write cycles.
 */
#include "settings.h"

#include <avr/eeprom.h>
#include <stddef.h>
#include <util/crc16.h>

#define SETTINGS_MAGIC 0x0A7E

settings_t settings;
static settings_t EEMEM stored;

static uint16_t settings_crc(const settings_t *s) {
    const uint8_t *p = (const uint8_t *)s;
    uint16_t crc = 0xFFFF;
    size_t i;
    for (i = 0; i < offsetof(settings_t, crc); i++) {
        crc = _crc_xmodem_update(crc, p[i]);
    }
    return crc;
}

void settings_save(void) {
    settings.crc = settings_crc(&settings);
    eeprom_update_block(&settings, &stored, sizeof settings);
}

void settings_load(void) {
    uint8_t ch;
    eeprom_read_block(&settings, &stored, sizeof settings);
    if (settings.magic != SETTINGS_MAGIC || settings.crc != settings_crc(&settings)) {
        settings.magic = SETTINGS_MAGIC;
        settings.boot_count = 0;
        settings.rate_hz = 10;
        for (ch = 0; ch < N_CHANNELS; ch++) {
            settings.offset[ch] = 0;
            settings.scale[ch] = DEFAULT_SCALE;
        }
    }
    if (settings.rate_hz != 10 && settings.rate_hz != 80) {
        settings.rate_hz = 10;
    }
    settings.boot_count++;
    settings_save();
}
