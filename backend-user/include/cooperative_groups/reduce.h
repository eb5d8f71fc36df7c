/* cooperative_groups/reduce.h for rgdev: the collectives are in cooperative_groups.h. */
#include "../cooperative_groups.h"
