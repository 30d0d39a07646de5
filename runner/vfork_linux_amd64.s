#include "textflag.h"

// func vforkExec(plan *childPlan, child uintptr) (pid uintptr, errno syscall.Errno)
//
// clone3 with the plan's clone arguments (its first field). The child
// shares this thread's memory and stack, and runs while the parent is
// suspended (CLONE_VM|CLONE_VFORK): it calls child, vforkChild's code, with
// the plan, in frames below this one, so the parent's are never touched;
// vforkChild ends in exec or exit. The parent resumes once the child has
// done either, and returns its pid or clone3's error.
//
// vforkChild is called as Go code calls it (ABIInternal: the argument in
// AX, X15 zero), through its address rather than its name: an assembly
// reference would go through a wrapper, which the race detector
// instruments. The 8 bytes of frame are where vforkChild may spill its
// argument.
TEXT ·vforkExec(SB),NOSPLIT,$8-32
	MOVQ	plan+0(FP), DI
	MOVQ	child+8(FP), R13
	MOVQ	DI, R12 // the kernel keeps R12 and R13 in both processes
	MOVQ	$88, SI // the size of cloneArgs
	MOVQ	$435, AX // SYS_clone3
	SYSCALL
	TESTQ	AX, AX
	JNE	parent
	MOVQ	R12, AX
	XORPS	X15, X15
	CALL	R13
exit:
	MOVL	$253, DI // not reached: vforkChild execs or exits
	MOVL	$60, AX // SYS_exit
	SYSCALL
	JMP	exit
parent:
	CMPQ	AX, $0xfffffffffffff001
	JLS	started
	NEGQ	AX
	MOVQ	$0, pid+16(FP)
	MOVQ	AX, errno+24(FP)
	RET
started:
	MOVQ	AX, pid+16(FP)
	MOVQ	$0, errno+24(FP)
	RET
