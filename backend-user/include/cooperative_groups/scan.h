/* cooperative_groups/scan.h for rgdev: the collectives are in cooperative_groups.h. */
#include "../cooperative_groups.h"
