/*
 * cuda::thread_scope, libcu++'s memory scopes (<cuda/atomic> and the synchronization
 * primitives name them; cooperative groups' thread_scope members are of this type), with its
 * documented values. Not a public header.
 */
#ifndef __RGDEV_THREAD_SCOPE_H__
#define __RGDEV_THREAD_SCOPE_H__
#if defined(__cplusplus)
namespace cuda {
enum thread_scope {
    thread_scope_system = 0,
    thread_scope_device = 1,
    thread_scope_block = 2,
    thread_scope_thread = 3
};
} // namespace cuda
#endif
#endif /* __RGDEV_THREAD_SCOPE_H__ */
