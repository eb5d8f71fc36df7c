/* cooperative_groups/memcpy_async.h for rgdev: the collectives are in cooperative_groups.h. */
#include "../cooperative_groups.h"
