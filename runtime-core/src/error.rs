//! Errors numbered like `CUresult`, so the C ABI is a cast.

use core::fmt;

/// A CUDA Driver API error (`CUresult` values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum CuError {
    /// CUDA_ERROR_INVALID_VALUE
    InvalidValue = 1,
    /// CUDA_ERROR_OUT_OF_MEMORY
    OutOfMemory = 2,
    /// CUDA_ERROR_NOT_INITIALIZED
    NotInitialized = 3,
    /// CUDA_ERROR_DEINITIALIZED
    Deinitialized = 4,
    /// CUDA_ERROR_NO_DEVICE
    NoDevice = 100,
    /// CUDA_ERROR_INVALID_DEVICE
    InvalidDevice = 101,
    /// CUDA_ERROR_INVALID_IMAGE
    InvalidImage = 200,
    /// CUDA_ERROR_INVALID_CONTEXT
    InvalidContext = 201,
    /// CUDA_ERROR_MAP_FAILED
    MapFailed = 205,
    /// CUDA_ERROR_NO_BINARY_FOR_GPU
    NoBinaryForGpu = 209,
    /// CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
    PeerAccessUnsupported = 217,
    /// CUDA_ERROR_INVALID_PTX
    InvalidPtx = 218,
    /// CUDA_ERROR_FILE_NOT_FOUND
    FileNotFound = 301,
    /// CUDA_ERROR_INVALID_HANDLE
    InvalidHandle = 400,
    /// CUDA_ERROR_ILLEGAL_STATE
    IllegalState = 401,
    /// CUDA_ERROR_NOT_FOUND
    NotFound = 500,
    /// CUDA_ERROR_UNSUPPORTED_LIMIT
    UnsupportedLimit = 215,
    /// CUDA_ERROR_NOT_READY
    NotReady = 600,
    /// CUDA_ERROR_ILLEGAL_ADDRESS
    IllegalAddress = 700,
    /// CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
    LaunchOutOfResources = 701,
    /// CUDA_ERROR_LAUNCH_TIMEOUT
    LaunchTimeout = 702,
    /// CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
    PeerAccessAlreadyEnabled = 704,
    /// CUDA_ERROR_PEER_ACCESS_NOT_ENABLED
    PeerAccessNotEnabled = 705,
    /// CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE
    PrimaryContextActive = 708,
    /// CUDA_ERROR_CONTEXT_IS_DESTROYED
    ContextIsDestroyed = 709,
    /// CUDA_ERROR_ASSERT
    Assert = 710,
    /// CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
    CooperativeLaunchTooLarge = 720,
    /// CUDA_ERROR_INVALID_CLUSTER_SIZE
    InvalidClusterSize = 912,
    /// CUDA_ERROR_TOO_MANY_PEERS
    TooManyPeers = 711,
    /// CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
    HostMemoryAlreadyRegistered = 712,
    /// CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
    HostMemoryNotRegistered = 713,
    /// CUDA_ERROR_ILLEGAL_INSTRUCTION
    IllegalInstruction = 715,
    /// CUDA_ERROR_MISALIGNED_ADDRESS
    MisalignedAddress = 716,
    /// CUDA_ERROR_INVALID_PC
    InvalidPc = 718,
    /// CUDA_ERROR_LAUNCH_FAILED
    LaunchFailed = 719,
    /// CUDA_ERROR_NOT_PERMITTED
    NotPermitted = 800,
    /// CUDA_ERROR_NOT_SUPPORTED
    NotSupported = 801,
    /// CUDA_ERROR_UNKNOWN
    Unknown = 999,
}

impl CuError {
    /// The `CUresult` number.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The error for a `CUresult` number (`None` for 0, success, or an unknown number).
    pub fn from_code(code: u32) -> Option<Self> {
        use CuError::*;
        [
            InvalidValue,
            OutOfMemory,
            NotInitialized,
            Deinitialized,
            NoDevice,
            InvalidDevice,
            InvalidImage,
            InvalidContext,
            MapFailed,
            NoBinaryForGpu,
            PeerAccessUnsupported,
            InvalidPtx,
            FileNotFound,
            InvalidHandle,
            IllegalState,
            NotFound,
            UnsupportedLimit,
            NotReady,
            IllegalAddress,
            LaunchOutOfResources,
            LaunchTimeout,
            PeerAccessAlreadyEnabled,
            PeerAccessNotEnabled,
            PrimaryContextActive,
            ContextIsDestroyed,
            Assert,
            CooperativeLaunchTooLarge,
            InvalidClusterSize,
            TooManyPeers,
            HostMemoryAlreadyRegistered,
            HostMemoryNotRegistered,
            IllegalInstruction,
            MisalignedAddress,
            InvalidPc,
            LaunchFailed,
            NotPermitted,
            NotSupported,
            Unknown,
        ]
        .into_iter()
        .find(|e| e.code() == code)
    }

    /// CUDA's description of the error (what cuGetErrorString returns).
    pub const fn description(self) -> &'static str {
        use CuError::*;
        match self {
            InvalidValue => "invalid argument",
            OutOfMemory => "out of memory",
            NotInitialized => "initialization error",
            Deinitialized => "driver shutting down",
            NoDevice => "no CUDA-capable device is detected",
            InvalidDevice => "invalid device ordinal",
            InvalidImage => "device kernel image is invalid",
            InvalidContext => "invalid device context",
            MapFailed => "mapping of buffer object failed",
            NoBinaryForGpu => "no kernel image is available for execution on the device",
            PeerAccessUnsupported => "peer access is not supported between these two devices",
            InvalidPtx => "a PTX JIT compilation failed",
            FileNotFound => "file not found",
            InvalidHandle => "invalid resource handle",
            IllegalState => "the operation cannot be performed in the present state",
            NotFound => "named symbol not found",
            UnsupportedLimit => "limit is not supported on this architecture",
            NotReady => "device not ready",
            IllegalAddress => "an illegal memory access was encountered",
            LaunchOutOfResources => "too many resources requested for launch",
            CooperativeLaunchTooLarge => "too many blocks in cooperative launch",
            InvalidClusterSize => "a kernel launch error has occurred due to cluster misconfiguration",
            LaunchTimeout => "the launch timed out and was terminated",
            PeerAccessAlreadyEnabled => "peer access is already enabled",
            PeerAccessNotEnabled => "peer access has not been enabled",
            TooManyPeers => "peer mapping resources exhausted",
            PrimaryContextActive => "primary context active",
            ContextIsDestroyed => "context is destroyed",
            Assert => "device-side assert triggered",
            HostMemoryAlreadyRegistered => "part or all of the requested memory range is already mapped",
            HostMemoryNotRegistered => "pointer does not correspond to a registered memory region",
            IllegalInstruction => "an illegal instruction was encountered",
            MisalignedAddress => "misaligned address",
            InvalidPc => "invalid program counter",
            LaunchFailed => "unspecified launch failure",
            NotPermitted => "operation not permitted",
            NotSupported => "operation not supported",
            Unknown => "unknown error",
        }
    }

    /// The CUDA name (`CUDA_ERROR_INVALID_VALUE`).
    pub const fn name(self) -> &'static str {
        use CuError::*;
        match self {
            InvalidValue => "CUDA_ERROR_INVALID_VALUE",
            OutOfMemory => "CUDA_ERROR_OUT_OF_MEMORY",
            NotInitialized => "CUDA_ERROR_NOT_INITIALIZED",
            Deinitialized => "CUDA_ERROR_DEINITIALIZED",
            NoDevice => "CUDA_ERROR_NO_DEVICE",
            InvalidDevice => "CUDA_ERROR_INVALID_DEVICE",
            InvalidImage => "CUDA_ERROR_INVALID_IMAGE",
            InvalidContext => "CUDA_ERROR_INVALID_CONTEXT",
            MapFailed => "CUDA_ERROR_MAP_FAILED",
            NoBinaryForGpu => "CUDA_ERROR_NO_BINARY_FOR_GPU",
            PeerAccessUnsupported => "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
            InvalidPtx => "CUDA_ERROR_INVALID_PTX",
            FileNotFound => "CUDA_ERROR_FILE_NOT_FOUND",
            InvalidHandle => "CUDA_ERROR_INVALID_HANDLE",
            IllegalState => "CUDA_ERROR_ILLEGAL_STATE",
            NotFound => "CUDA_ERROR_NOT_FOUND",
            UnsupportedLimit => "CUDA_ERROR_UNSUPPORTED_LIMIT",
            NotReady => "CUDA_ERROR_NOT_READY",
            IllegalAddress => "CUDA_ERROR_ILLEGAL_ADDRESS",
            LaunchOutOfResources => "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
            CooperativeLaunchTooLarge => "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
            InvalidClusterSize => "CUDA_ERROR_INVALID_CLUSTER_SIZE",
            LaunchTimeout => "CUDA_ERROR_LAUNCH_TIMEOUT",
            PeerAccessAlreadyEnabled => "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
            PeerAccessNotEnabled => "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
            TooManyPeers => "CUDA_ERROR_TOO_MANY_PEERS",
            PrimaryContextActive => "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
            ContextIsDestroyed => "CUDA_ERROR_CONTEXT_IS_DESTROYED",
            Assert => "CUDA_ERROR_ASSERT",
            HostMemoryAlreadyRegistered => "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
            HostMemoryNotRegistered => "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
            IllegalInstruction => "CUDA_ERROR_ILLEGAL_INSTRUCTION",
            MisalignedAddress => "CUDA_ERROR_MISALIGNED_ADDRESS",
            InvalidPc => "CUDA_ERROR_INVALID_PC",
            LaunchFailed => "CUDA_ERROR_LAUNCH_FAILED",
            NotPermitted => "CUDA_ERROR_NOT_PERMITTED",
            NotSupported => "CUDA_ERROR_NOT_SUPPORTED",
            Unknown => "CUDA_ERROR_UNKNOWN",
        }
    }
}

impl fmt::Display for CuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.code())
    }
}

impl core::error::Error for CuError {}

/// Result alias of the runtime.
pub type Result<T> = core::result::Result<T, CuError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_cuda_and_round_trip() {
        assert_eq!(CuError::InvalidValue.code(), 1);
        assert_eq!(CuError::InvalidContext.code(), 201);
        assert_eq!(CuError::IllegalAddress.code(), 700);
        assert_eq!(CuError::NotSupported.code(), 801);
        for c in 0..1000 {
            if let Some(e) = CuError::from_code(c) {
                assert_eq!(e.code(), c);
                assert!(e.name().starts_with("CUDA_ERROR_"));
            }
        }
        assert_eq!(CuError::from_code(0), None);
        // Every variant is reachable from its number.
        assert_eq!((0..1000).filter_map(CuError::from_code).count(), 38);
        assert_eq!(CuError::HostMemoryNotRegistered.code(), 713);
        assert_eq!(CuError::from_code(301), Some(CuError::FileNotFound));
    }
}
