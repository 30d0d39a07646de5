#include "go_asm.h"
#include "textflag.h"

// func vforkExec(plan *childPlan, child uintptr) uintptr
//
// clone3 with the plan's clone arguments (its first field), with every
// signal blocked on this thread meanwhile; the thread's mask as it was
// goes into the plan. All of it happens here, where the goroutine cannot
// be moved to another thread. The child shares this thread's memory and
// stack, and runs while the parent is suspended (CLONE_VM|CLONE_VFORK):
// it calls child, vforkChild's code, with the plan, in frames below this
// one, so the parent's are never touched; vforkChild ends in exec or
// exit. The parent resumes once the child has done either, and returns
// clone3's result: the child's pid, or -errno.
//
// vforkChild is called as Go code calls it (ABIInternal: the argument in
// AX, X15 zero), through its address rather than its name: an assembly
// reference would go through a wrapper, which the race detector
// instruments. The 8 bytes of frame are where vforkChild may spill its
// argument.
TEXT ·vforkExec(SB),NOSPLIT,$8-24
	MOVQ	plan+0(FP), R12 // the kernel keeps R12 and R13 across system calls
	MOVQ	child+8(FP), R13

	MOVQ	$const_sigSetmask, DI
	LEAQ	childPlan_blocked(R12), SI
	LEAQ	childPlan_mask(R12), DX
	MOVQ	$8, R10 // the size of a kernel sigset
	MOVQ	$const_sysRtSigprocmask, AX
	SYSCALL

	MOVQ	R12, DI // the clone arguments
	MOVQ	$cloneArgs__size, SI
	MOVQ	$const_sysClone3, AX
	SYSCALL
	TESTQ	AX, AX
	JNE	parent
	MOVQ	R12, AX
	XORPS	X15, X15
	CALL	R13
exit:
	MOVL	$253, DI // not reached: vforkChild execs or exits
	MOVL	$const_sysExit, AX
	SYSCALL
	JMP	exit

parent:
	MOVQ	AX, R13 // the pid, or -errno
	MOVQ	$const_sigSetmask, DI
	LEAQ	childPlan_mask(R12), SI
	MOVQ	$0, DX
	MOVQ	$8, R10
	MOVQ	$const_sysRtSigprocmask, AX
	SYSCALL

	MOVQ	R13, ret+16(FP)
	RET

// func childSyscall(trap, a1, a2, a3, a4 uintptr) (r1 uintptr, errno syscall.Errno)
TEXT ·childSyscall(SB),NOSPLIT|NOFRAME,$0-56
	MOVQ	a1+8(FP), DI
	MOVQ	a2+16(FP), SI
	MOVQ	a3+24(FP), DX
	MOVQ	a4+32(FP), R10
	MOVQ	trap+0(FP), AX
	SYSCALL
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	NEGQ	AX
	MOVQ	$-1, r1+40(FP)
	MOVQ	AX, errno+48(FP)
	RET
ok:
	MOVQ	AX, r1+40(FP)
	MOVQ	$0, errno+48(FP)
	RET
