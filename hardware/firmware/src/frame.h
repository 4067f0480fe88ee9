/* frame.h - the wire protocol's framing: sync, length, type, sequence, CRC (see frame.c). */
#ifndef FRAME_H
#define FRAME_H

#include <stdint.h>

#define FRAME_SYNC0 0xA5
#define FRAME_SYNC1 0x5A
#define FRAME_MAX_PAYLOAD 80

/* Message types (hardware/PROTOCOL.md). Device -> host below 0x80. */
enum {
    MSG_HELLO = 0x01,
    MSG_READING = 0x02,
    MSG_ACK = 0x03,
    MSG_TEXT = 0x04,
    CMD_IDENTIFY = 0x81,
    CMD_TARE = 0x82,
    CMD_CALIBRATE = 0x83,
    CMD_SET_LEDS = 0x84,
    CMD_SET_RATE = 0x85,
};

enum { ACK_OK = 0, ACK_BAD_ARGUMENT = 1, ACK_UNKNOWN_COMMAND = 2, ACK_FAILED = 3 };

typedef struct {
    uint8_t type;
    uint8_t seq;
    uint8_t len;
    uint8_t payload[FRAME_MAX_PAYLOAD];
} frame_t;

/* Send one frame with the next outgoing sequence number (waits for buffer space). */
void frame_send(uint8_t type, const uint8_t *payload, uint8_t len);

/* Send one frame only if it fits in the transmit buffer now; returns 0 if dropped.
 * Readings use this: a late HX711 read would corrupt the next conversion, so the
 * sampling loop never waits for the UART. The host sees the gap in the sample
 * counter. */
uint8_t frame_try_send(uint8_t type, const uint8_t *payload, uint8_t len);

/* Feed one received byte; returns 1 when `out` holds a complete frame with a good CRC. */
uint8_t frame_feed(uint8_t byte, frame_t *out);

#endif
