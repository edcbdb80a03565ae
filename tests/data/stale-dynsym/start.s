# The program: _start spins a while itself (so that perf record lists its
# build-id), calls spin_a in libspin.so six times, then exits (no libc, so
# every user frame comes from these files).
	.text
	.globl _start
	.type _start,@function
_start:
	xor %ebp, %ebp
	push %rbp
	mov %rsp, %rbp
	push %rbx
	push %rbx
	mov $50000000, %ecx
2:	dec %ecx
	jnz 2b
	mov $6, %ebx
1:	call spin_a@PLT
	dec %ebx
	jnz 1b
	mov $60, %eax
	xor %edi, %edi
	syscall
	.size _start, .-_start
	.section .note.GNU-stack,"",@progbits
