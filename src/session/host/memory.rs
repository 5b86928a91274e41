//! Giving the memory of ended sessions back to the system.
//!
//! Each session's output is parsed on its own thread, so glibc's allocator serves it from a
//! per-thread arena, and what a flood of output allocated there stays mapped after the session
//! is gone (measured: a host at 6 MB idle, 146 MB under four flooding sessions, still 89 MB
//! 5 s after `stop --all`). `malloc_trim` hands the free pages of every arena back.

#![allow(unsafe_code)]

/// Returns the allocator's free memory to the system (glibc; elsewhere nothing to do).
pub(super) fn give_back_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers; it works on the allocator's own state under the
    // allocator's locks, like any malloc or free on another thread.
    unsafe {
        libc::malloc_trim(0);
    }
}
