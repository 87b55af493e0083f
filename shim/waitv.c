// SPDX-License-Identifier: GPL-2.0
/*
 * futex_waitv (449), the vectored wait of Wine's and Proton's fsync.
 *
 * The module has no vectored wait yet (issue 18, parts 3 and 4), so the
 * call is one it lacks: ENOSYS, said once. It is routed as soon as
 * kmod/uapi/futexlab.h defines FUTEXLAB_IOC_WAITV; what is left then is
 * one function, shim_waitv_ioctl() in its own file: read the vector with
 * shim_copy_from_user() (EFAULT), check it as sys_futex_waitv() does
 * (flags 0; 1..128 entries; each entry's flags FUTEX2_SIZE_U32 with or
 * without FUTEX2_PRIVATE, reserved 0; EINVAL), turn the timeout into a
 * deadline with shim_deadline() on the clock clockid names, and issue the
 * ioctl, returning the woken index. Until that function exists, the weak
 * one below keeps the call ENOSYS and says why.
 */
#include <sys/ioctl.h>	/* the uapi header uses _IOWR without it */

#include "kmod/uapi/futexlab.h"
#include "shim/shim.h"

#ifdef FUTEXLAB_IOC_WAITV
long shim_waitv_ioctl(const long *a);

__attribute__((weak)) long shim_waitv_ioctl(const long *a)
{
	(void)a;
	return shim_lacking(SHIM_LACK_WAITV_TRANSLATION,
			    "futex_waitv (the module has FUTEXLAB_IOC_WAITV, "
			    "the shim no translation yet: shim/waitv.c)");
}
#endif

long shim_futex_waitv(const long *a)
{
#ifdef FUTEXLAB_IOC_WAITV
	return shim_waitv_ioctl(a);
#else
	(void)a;
	return shim_lacking(SHIM_LACK_WAITV, "futex_waitv");
#endif
}
