//! The rest of the CUDA 12 Driver API table: entry points rgdev does not implement.
//!
//! Each is exported under its CUDA name and returns CUDA_ERROR_NOT_SUPPORTED, so programs
//! and loaders that resolve the whole table up front (cudarc's dynamic loading does) link
//! and run, and a call to one of these gets a clean error. The functions take no
//! parameters: under the C calling conventions of the supported targets (x86-64 System V,
//! AArch64 AAPCS) the caller owns its argument registers and stack, so a callee that
//! ignores them is correct for any argument list.

use crate::CUresult;
use runtime_core::CuError;

macro_rules! unsupported {
    ($($name:ident)*) => {
        $(
            #[doc = concat!("`", stringify!($name), "`: not supported (CUDA_ERROR_NOT_SUPPORTED).")]
            #[unsafe(no_mangle)]
            pub extern "C" fn $name() -> CUresult {
                CuError::NotSupported.code() as CUresult
            }
        )*
        /// The names above, for the README and tests.
        pub const NAMES: &[&str] = &[$(stringify!($name)),*];
    };
}

unsupported! {

    cuArrayGetMemoryRequirements cuArrayGetPlane cuArrayGetSparseProperties cuCheckpointProcessCheckpoint
    cuCheckpointProcessGetRestoreThreadId cuCheckpointProcessGetState cuCheckpointProcessLock
    cuCheckpointProcessRestore cuCheckpointProcessUnlock cuDeviceGetNvSciSyncAttributes cuCoredumpGetAttribute
    cuCoredumpGetAttributeGlobal cuCoredumpSetAttribute cuCoredumpSetAttributeGlobal cuCtxAttach cuCtxCreate_v3 cuCtxCreate_v4
    cuCtxDetach cuCtxFromGreenCtx cuCtxGetApiVersion
    cuCtxGetCacheConfig cuCtxGetDevResource cuCtxGetDevice_v2 cuCtxGetExecAffinity cuCtxGetFlags cuCtxGetId
    cuCtxGetSharedMemConfig cuCtxRecordEvent cuCtxResetPersistingL2Cache
    cuCtxSetCacheConfig cuCtxSetFlags cuCtxSetSharedMemConfig cuCtxSynchronize_v2 cuCtxWaitEvent
    cuDestroyExternalMemory cuDestroyExternalSemaphore cuDevResourceGenerateDesc cuDevSmResourceSplitByCount
    cuDeviceGetDefaultMemPool cuDeviceGetDevResource cuDeviceGetExecAffinitySupport
    cuDeviceGetGraphMemAttribute cuDeviceGetHostAtomicCapabilities cuDeviceGetLuid cuDeviceGetMemPool
    cuDeviceGetP2PAtomicCapabilities cuDeviceGetProperties
    cuDeviceGetTexture1DLinearMaxWidth cuDeviceGraphMemTrim
    cuDeviceRegisterAsyncNotification cuDeviceSetGraphMemAttribute cuDeviceSetMemPool
    cuDeviceUnregisterAsyncNotification cuExternalMemoryGetMappedBuffer
    cuExternalMemoryGetMappedMipmappedArray cuFlushGPUDirectRDMAWrites cuFuncGetModule cuFuncGetName
    cuFuncGetParamInfo cuFuncIsLoaded cuFuncLoad cuFuncSetCacheConfig cuFuncSetSharedMemConfig
      cuGraphAddBatchMemOpNode cuGraphAddChildGraphNode
    cuGraphAddDependencies cuGraphAddDependencies_v2 cuGraphAddEmptyNode cuGraphAddEventRecordNode
    cuGraphAddEventWaitNode cuGraphAddExternalSemaphoresSignalNode cuGraphAddExternalSemaphoresWaitNode
    cuGraphAddHostNode cuGraphAddKernelNode cuGraphAddKernelNode_v2 cuGraphAddMemAllocNode cuGraphAddMemFreeNode
    cuGraphAddMemcpyNode cuGraphAddMemsetNode cuGraphAddNode cuGraphAddNode_v2 cuGraphBatchMemOpNodeGetParams
    cuGraphBatchMemOpNodeSetParams cuGraphChildGraphNodeGetGraph cuGraphClone cuGraphConditionalHandleCreate
    cuGraphCreate cuGraphDebugDotPrint cuGraphDestroy cuGraphDestroyNode cuGraphEventRecordNodeGetEvent
    cuGraphEventRecordNodeSetEvent cuGraphEventWaitNodeGetEvent cuGraphEventWaitNodeSetEvent
    cuGraphExecBatchMemOpNodeSetParams cuGraphExecChildGraphNodeSetParams cuGraphExecDestroy
    cuGraphExecEventRecordNodeSetEvent cuGraphExecEventWaitNodeSetEvent
    cuGraphExecExternalSemaphoresSignalNodeSetParams cuGraphExecExternalSemaphoresWaitNodeSetParams
    cuGraphExecGetFlags cuGraphExecHostNodeSetParams cuGraphExecKernelNodeSetParams
    cuGraphExecKernelNodeSetParams_v2 cuGraphExecMemcpyNodeSetParams cuGraphExecMemsetNodeSetParams
    cuGraphExecNodeSetParams cuGraphExecUpdate cuGraphExecUpdate_v2 cuGraphExternalSemaphoresSignalNodeGetParams
    cuGraphExternalSemaphoresSignalNodeSetParams cuGraphExternalSemaphoresWaitNodeGetParams
    cuGraphExternalSemaphoresWaitNodeSetParams cuGraphGetEdges cuGraphGetEdges_v2 cuGraphGetNodes
    cuGraphGetRootNodes cuGraphHostNodeGetParams cuGraphHostNodeSetParams cuGraphInstantiateWithFlags
    cuGraphInstantiateWithParams cuGraphInstantiate_v2 cuGraphKernelNodeCopyAttributes cuGraphKernelNodeGetAttribute
    cuGraphKernelNodeGetParams cuGraphKernelNodeGetParams_v2 cuGraphKernelNodeSetAttribute
    cuGraphKernelNodeSetParams cuGraphKernelNodeSetParams_v2 cuGraphLaunch cuGraphMemAllocNodeGetParams
    cuGraphMemFreeNodeGetParams cuGraphMemcpyNodeGetParams cuGraphMemcpyNodeSetParams cuGraphMemsetNodeGetParams
    cuGraphMemsetNodeSetParams cuGraphNodeFindInClone cuGraphNodeGetDependencies cuGraphNodeGetDependencies_v2
    cuGraphNodeGetDependentNodes cuGraphNodeGetDependentNodes_v2 cuGraphNodeGetEnabled cuGraphNodeGetType
    cuGraphNodeSetEnabled cuGraphNodeSetParams cuGraphReleaseUserObject cuGraphRemoveDependencies
    cuGraphRemoveDependencies_v2 cuGraphRetainUserObject cuGraphUpload cuGraphicsMapResources
    cuGraphicsResourceGetMappedMipmappedArray cuGraphicsResourceGetMappedPointer_v2 cuGraphicsResourceSetMapFlags_v2
    cuGraphicsSubResourceGetMappedArray cuGraphicsUnmapResources cuGraphicsUnregisterResource cuGreenCtxCreate
    cuGreenCtxDestroy cuGreenCtxGetDevResource cuGreenCtxGetId cuGreenCtxRecordEvent cuGreenCtxStreamCreate
    cuGreenCtxWaitEvent cuImportExternalMemory cuImportExternalSemaphore cuIpcCloseMemHandle cuIpcGetEventHandle
    cuIpcGetMemHandle cuIpcOpenEventHandle cuIpcOpenMemHandle_v2 cuKernelGetAttribute cuKernelGetFunction
    cuKernelGetLibrary cuKernelGetName cuKernelGetParamInfo cuKernelSetAttribute cuKernelSetCacheConfig
    cuLaunchCooperativeKernelMultiDevice cuLaunchGridAsync
    cuLibraryEnumerateKernels cuLibraryGetGlobal cuLibraryGetKernel cuLibraryGetKernelCount
    cuLibraryGetManaged cuLibraryGetModule cuLibraryGetUnifiedFunction cuLibraryLoadData cuLibraryLoadFromFile
    cuLibraryUnload      cuLogsCurrent
    cuLogsDumpToFile cuLogsDumpToMemory cuLogsRegisterCallback cuLogsUnregisterCallback
       cuMemAllocAsync cuMemAllocFromPoolAsync
    cuMemBatchDecompressAsync  cuMemDiscardAndPrefetchBatchAsync
    cuMemDiscardBatchAsync cuMemExportToShareableHandle cuMemFreeAsync
      cuMemGetDefaultMemPool
    cuMemGetHandleForAddressRange cuMemGetMemPool
    cuMemImportFromShareableHandle  cuMemMapArrayAsync cuMemPoolCreate cuMemPoolDestroy
    cuMemPoolExportPointer cuMemPoolExportToShareableHandle cuMemPoolGetAccess cuMemPoolGetAttribute
    cuMemPoolImportFromShareableHandle cuMemPoolImportPointer cuMemPoolSetAccess cuMemPoolSetAttribute
    cuMemPoolTrimTo   cuMemPrefetchBatchAsync
        cuMemSetMemPool
    cuMemcpy3DBatchAsync
    cuMemcpy3DBatchAsync_v2 cuMemcpy3DPeer cuMemcpy3DPeerAsync
         cuMemcpyBatchAsync cuMemcpyBatchAsync_v2



    cuMipmappedArrayGetMemoryRequirements cuMipmappedArrayGetSparseProperties cuModuleEnumerateFunctions
    cuModuleGetFunctionCount cuModuleGetLoadingMode   cuModuleLoadFatBinary
    cuMulticastAddDevice cuMulticastBindAddr cuMulticastBindMem cuMulticastCreate cuMulticastGetGranularity
    cuMulticastUnbind cuOccupancyAvailableDynamicSMemPerBlock cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
    cuOccupancyMaxPotentialBlockSizeWithFlags cuOccupancyMaxPotentialClusterSize
    cuParamSetTexRef cuPointerSetAttribute cuProfilerInitialize
    cuProfilerStart cuProfilerStop cuSignalExternalSemaphoresAsync
    cuStreamBatchMemOp cuStreamBatchMemOp_v2 cuStreamBeginCaptureToGraph cuStreamBeginCapture_v2
    cuStreamCopyAttributes cuStreamEndCapture cuStreamGetAttribute cuStreamGetCaptureInfo
    cuStreamGetCaptureInfo_v2 cuStreamGetCaptureInfo_v3 cuStreamGetCtx_v2
    cuStreamGetGreenCtx cuStreamGetId cuStreamIsCapturing cuStreamSetAttribute
    cuStreamUpdateCaptureDependencies cuStreamUpdateCaptureDependencies_v2 cuStreamWaitValue32
    cuStreamWaitValue32_v2 cuStreamWaitValue64 cuStreamWaitValue64_v2 cuStreamWriteValue32 cuStreamWriteValue32_v2
    cuStreamWriteValue64 cuStreamWriteValue64_v2
      cuTensorMapEncodeIm2col cuTensorMapEncodeIm2colWide cuTensorMapEncodeTiled
    cuTensorMapReplaceAddress
    cuTexObjectGetResourceViewDesc   cuTexRefCreate cuTexRefDestroy





     cuThreadExchangeStreamCaptureMode cuUserObjectCreate
    cuUserObjectRelease cuUserObjectRetain cuWaitExternalSemaphoresAsync
    cuGraphicsResourceGetMappedPointer cuGraphicsResourceSetMapFlags cuIpcOpenMemHandle cuStreamBeginCapture
    cuGraphInstantiate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stub_says_not_supported() {
        assert_eq!(cuMipmappedArrayGetSparseProperties(), 801);
        assert_eq!(cuGraphLaunch(), 801);
        let mut names = NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), NAMES.len(), "a name is listed twice");
        assert!(NAMES.iter().all(|n| n.starts_with("cu")));
        // Implemented entry points are not shadowed by a stub.
        for n in ["cuMemAlloc_v2", "cuLaunchKernel", "cuMemsetD8Async", "cuStreamCreate", "cuTexObjectCreate"] {
            assert!(!NAMES.contains(&n), "{n}");
        }
    }
}
