/*
 * frame.c - encode and decode frames of the sensor board protocol.
 *
 *   A5 5A | LEN | TYPE | SEQ | PAYLOAD (LEN bytes) | CRC16 little endian
 *
 * CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over LEN..PAYLOAD; avr-libc's
 * _crc_xmodem_update is that polynomial, unreflected. The receiver is a small
 * state machine: any byte that does not fit sends it back to hunting for the
 * sync word, so line noise can cost at most the frame it hit.
 */
#include "frame.h"

#include <util/crc16.h>

#include "uart.h"

static uint8_t tx_seq;

void frame_send(uint8_t type, const uint8_t *payload, uint8_t len) {
    uint8_t head[5];
    uint16_t crc = 0xFFFF;
    uint8_t i;
    head[0] = FRAME_SYNC0;
    head[1] = FRAME_SYNC1;
    head[2] = len;
    head[3] = type;
    head[4] = tx_seq++;
    for (i = 2; i < 5; i++) {
        crc = _crc_xmodem_update(crc, head[i]);
    }
    for (i = 0; i < len; i++) {
        crc = _crc_xmodem_update(crc, payload[i]);
    }
    uart_write(head, 5);
    uart_write(payload, len);
    head[0] = (uint8_t)crc;
    head[1] = (uint8_t)(crc >> 8);
    uart_write(head, 2);
}

uint8_t frame_try_send(uint8_t type, const uint8_t *payload, uint8_t len) {
    if (uart_tx_free() < (uint8_t)(len + 7)) {
        return 0;
    }
    frame_send(type, payload, len);
    return 1;
}

enum { S_SYNC0, S_SYNC1, S_LEN, S_TYPE, S_SEQ, S_PAYLOAD, S_CRC0, S_CRC1 };

static uint8_t rx_state = S_SYNC0;
static uint8_t rx_pos;
static uint16_t rx_crc;
static uint8_t rx_crc_lo;

uint8_t frame_feed(uint8_t byte, frame_t *out) {
    switch (rx_state) {
    case S_SYNC0:
        if (byte == FRAME_SYNC0) {
            rx_state = S_SYNC1;
        }
        return 0;
    case S_SYNC1:
        rx_state = (byte == FRAME_SYNC1) ? S_LEN : (byte == FRAME_SYNC0 ? S_SYNC1 : S_SYNC0);
        return 0;
    case S_LEN:
        if (byte > FRAME_MAX_PAYLOAD) {
            rx_state = S_SYNC0;
            return 0;
        }
        out->len = byte;
        rx_crc = _crc_xmodem_update(0xFFFF, byte);
        rx_state = S_TYPE;
        return 0;
    case S_TYPE:
        out->type = byte;
        rx_crc = _crc_xmodem_update(rx_crc, byte);
        rx_state = S_SEQ;
        return 0;
    case S_SEQ:
        out->seq = byte;
        rx_crc = _crc_xmodem_update(rx_crc, byte);
        rx_pos = 0;
        rx_state = out->len ? S_PAYLOAD : S_CRC0;
        return 0;
    case S_PAYLOAD:
        out->payload[rx_pos++] = byte;
        rx_crc = _crc_xmodem_update(rx_crc, byte);
        if (rx_pos >= out->len) {
            rx_state = S_CRC0;
        }
        return 0;
    case S_CRC0:
        rx_crc_lo = byte;
        rx_state = S_CRC1;
        return 0;
    default: /* S_CRC1 */
        rx_state = S_SYNC0;
        return (uint16_t)(rx_crc_lo | ((uint16_t)byte << 8)) == rx_crc;
    }
}
