/*
 * reduce_order.h - duo's reduction order is written down in the installed
 * header <duo/reduce_order.h>, since user reductions follow it too; this
 * name stays for the library's own sources.
 */
#ifndef DUO_SRC_REDUCE_ORDER_H
#define DUO_SRC_REDUCE_ORDER_H

#include <duo/reduce_order.h>

#endif /* DUO_SRC_REDUCE_ORDER_H */
