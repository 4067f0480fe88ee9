/* ws2812.h - one addressable RGB LED per pit on a single data line (see ws2812.c). */
#ifndef WS2812_H
#define WS2812_H

#include <stdint.h>

void ws2812_init(void);
/* Send `n` colours, 3 bytes each in R, G, B order (the chip wants G, R, B). */
void ws2812_show(const uint8_t *rgb, uint8_t n);

#endif
