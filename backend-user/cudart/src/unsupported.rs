//! The rest of CUDA 12.9's runtime API table: entry points rgdev's runtime does not
//! implement yet. Each is exported under its CUDA name and returns cudaErrorNotSupported
//! (recorded as the thread's last error, as every failed call is), so programs that link
//! any of them build and run and get a clean error. The functions take no parameters:
//! under the C calling conventions of the supported targets the caller owns its argument
//! registers and stack, so a callee that ignores them is correct for any argument list.
//! docs/runtime-api.md lists them.

use crate::error::{self, Status, codes::cudaErrorNotSupported};

macro_rules! unsupported {
    ($($name:ident)*) => {
        $(
            #[doc = concat!("`", stringify!($name), "`: not supported (cudaErrorNotSupported).")]
            #[unsafe(no_mangle)]
            pub extern "C" fn $name() -> Status {
                error::record(cudaErrorNotSupported)
            }
        )*
        /// The names above, for the documentation and tests.
        pub const NAMES: &[&str] = &[$(stringify!($name)),*];
    };
}

unsupported! {
    cudaArrayGetMemoryRequirements cudaArrayGetPlane cudaArrayGetSparseProperties
    cudaCtxResetPersistingL2Cache cudaDestroyExternalMemory cudaDestroyExternalSemaphore
      cudaDeviceFlushGPUDirectRDMAWrites cudaDeviceGetNvSciSyncAttributes
    cudaDeviceGetDefaultMemPool cudaDeviceGetGraphMemAttribute cudaDeviceGetMemPool
    cudaDeviceGetTexture1DLinearMaxWidth cudaDeviceGraphMemTrim cudaDeviceRegisterAsyncNotification
    cudaDeviceSetGraphMemAttribute cudaDeviceSetMemPool cudaDeviceUnregisterAsyncNotification
    cudaExternalMemoryGetMappedBuffer cudaExternalMemoryGetMappedMipmappedArray cudaFreeAsync
     cudaFuncGetParamInfo
    cudaGetExportTable cudaGetKernel  cudaGetTextureObjectResourceViewDesc
    cudaGraphAddChildGraphNode cudaGraphAddDependencies cudaGraphAddDependencies_v2 cudaGraphAddEmptyNode
    cudaGraphAddEventRecordNode cudaGraphAddEventWaitNode cudaGraphAddExternalSemaphoresSignalNode
    cudaGraphAddExternalSemaphoresWaitNode cudaGraphAddHostNode cudaGraphAddKernelNode
    cudaGraphAddMemAllocNode cudaGraphAddMemFreeNode cudaGraphAddMemcpyNode cudaGraphAddMemcpyNode1D
    cudaGraphAddMemcpyNodeFromSymbol cudaGraphAddMemcpyNodeToSymbol cudaGraphAddMemsetNode cudaGraphAddNode
    cudaGraphAddNode_v2 cudaGraphChildGraphNodeGetGraph cudaGraphClone cudaGraphConditionalHandleCreate
    cudaGraphCreate cudaGraphDebugDotPrint cudaGraphDestroy cudaGraphDestroyNode
    cudaGraphEventRecordNodeGetEvent cudaGraphEventRecordNodeSetEvent cudaGraphEventWaitNodeGetEvent
    cudaGraphEventWaitNodeSetEvent cudaGraphExecChildGraphNodeSetParams cudaGraphExecDestroy
    cudaGraphExecEventRecordNodeSetEvent cudaGraphExecEventWaitNodeSetEvent
    cudaGraphExecExternalSemaphoresSignalNodeSetParams cudaGraphExecExternalSemaphoresWaitNodeSetParams
    cudaGraphExecGetFlags cudaGraphExecHostNodeSetParams cudaGraphExecKernelNodeSetParams
    cudaGraphExecMemcpyNodeSetParams cudaGraphExecMemcpyNodeSetParams1D
    cudaGraphExecMemcpyNodeSetParamsFromSymbol cudaGraphExecMemcpyNodeSetParamsToSymbol
    cudaGraphExecMemsetNodeSetParams cudaGraphExecNodeSetParams cudaGraphExecUpdate
    cudaGraphExternalSemaphoresSignalNodeGetParams cudaGraphExternalSemaphoresSignalNodeSetParams
    cudaGraphExternalSemaphoresWaitNodeGetParams cudaGraphExternalSemaphoresWaitNodeSetParams
    cudaGraphGetEdges cudaGraphGetEdges_v2 cudaGraphGetNodes cudaGraphGetRootNodes cudaGraphHostNodeGetParams
    cudaGraphHostNodeSetParams cudaGraphInstantiate cudaGraphInstantiateWithFlags
    cudaGraphInstantiateWithParams cudaGraphKernelNodeCopyAttributes cudaGraphKernelNodeGetAttribute
    cudaGraphKernelNodeGetParams cudaGraphKernelNodeSetAttribute cudaGraphKernelNodeSetParams cudaGraphLaunch
    cudaGraphMemAllocNodeGetParams cudaGraphMemFreeNodeGetParams cudaGraphMemcpyNodeGetParams
    cudaGraphMemcpyNodeSetParams cudaGraphMemcpyNodeSetParams1D cudaGraphMemcpyNodeSetParamsFromSymbol
    cudaGraphMemcpyNodeSetParamsToSymbol cudaGraphMemsetNodeGetParams cudaGraphMemsetNodeSetParams
    cudaGraphNodeFindInClone cudaGraphNodeGetDependencies cudaGraphNodeGetDependencies_v2
    cudaGraphNodeGetDependentNodes cudaGraphNodeGetDependentNodes_v2 cudaGraphNodeGetEnabled
    cudaGraphNodeGetType cudaGraphNodeSetEnabled cudaGraphNodeSetParams cudaGraphReleaseUserObject
    cudaGraphRemoveDependencies cudaGraphRemoveDependencies_v2 cudaGraphRetainUserObject cudaGraphUpload
    cudaGraphicsMapResources cudaGraphicsResourceGetMappedMipmappedArray cudaGraphicsResourceGetMappedPointer
    cudaGraphicsResourceSetMapFlags cudaGraphicsSubResourceGetMappedArray cudaGraphicsUnmapResources
    cudaGraphicsUnregisterResource cudaImportExternalMemory cudaImportExternalSemaphore cudaIpcCloseMemHandle
    cudaIpcGetEventHandle cudaIpcGetMemHandle cudaIpcOpenEventHandle cudaIpcOpenMemHandle
    cudaKernelSetAttributeForDevice cudaLaunchCooperativeKernelMultiDevice
    cudaLibraryEnumerateKernels cudaLibraryGetGlobal cudaLibraryGetKernel cudaLibraryGetKernelCount
    cudaLibraryGetManaged cudaLibraryGetUnifiedFunction cudaLibraryLoadData cudaLibraryLoadFromFile
    cudaLibraryUnload cudaMallocAsync cudaMallocFromPoolAsync
      cudaMemPoolCreate cudaMemPoolDestroy cudaMemPoolExportPointer
    cudaMemPoolExportToShareableHandle cudaMemPoolGetAccess cudaMemPoolGetAttribute
    cudaMemPoolImportFromShareableHandle cudaMemPoolImportPointer cudaMemPoolSetAccess cudaMemPoolSetAttribute
    cudaMemPoolTrimTo
     cudaMemcpy3DBatchAsync cudaMemcpy3DPeer cudaMemcpy3DPeerAsync
    cudaMemcpyArrayToArray cudaMemcpyBatchAsync cudaMemcpyFromArrayAsync
    cudaMemcpyToArrayAsync cudaMipmappedArrayGetMemoryRequirements cudaMipmappedArrayGetSparseProperties
    cudaOccupancyMaxPotentialClusterSize cudaSetDoubleForDevice
    cudaSetDoubleForHost cudaSignalExternalSemaphoresAsync_v2  cudaStreamBeginCapture
    cudaStreamBeginCaptureToGraph cudaStreamCopyAttributes cudaStreamEndCapture cudaStreamGetAttribute
    cudaStreamGetCaptureInfo_v2 cudaStreamGetCaptureInfo_v3 cudaStreamGetId
    cudaStreamIsCapturing cudaStreamSetAttribute cudaStreamUpdateCaptureDependencies
    cudaStreamUpdateCaptureDependencies_v2 cudaThreadExchangeStreamCaptureMode cudaUserObjectCreate
    cudaUserObjectRelease cudaUserObjectRetain cudaWaitExternalSemaphoresAsync_v2
}
