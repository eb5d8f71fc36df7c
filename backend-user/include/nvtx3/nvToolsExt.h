/*
 * nvtx3/nvToolsExt.h for rgdev: NVTX 3's include path for the same API as nvToolsExt.h
 * (with rgdev the functions live in libnvToolsExt.so.1, which `rgdev cc` links).
 */
#include "../nvToolsExt.h"
