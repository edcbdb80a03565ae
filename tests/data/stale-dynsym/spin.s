# libspin.so: spin_body under three global aliases (perf keeps the longest
# name), calling tick() through the PLT 30 million times, and a data
# object whose .dynsym section index make-fixture.sh makes stale.
	.text
	.globl spin_a
	.type spin_a,@function
	.set spin_a, spin_body
	.size spin_a, 64
	.globl spin_bb_longer
	.type spin_bb_longer,@function
	.set spin_bb_longer, spin_body
	.size spin_bb_longer, 64
	.globl spin_ccc_the_longest_alias_name
	.type spin_ccc_the_longest_alias_name,@function
	.set spin_ccc_the_longest_alias_name, spin_body
	.size spin_ccc_the_longest_alias_name, 64
	.type spin_body,@function
spin_body:
	push %rbp
	mov %rsp, %rbp
	push %rbx
	sub $8, %rsp
	mov $30000000, %rbx
1:	call tick@PLT
	dec %rbx
	jnz 1b
	add $8, %rsp
	pop %rbx
	pop %rbp
	ret
	.size spin_body, 64
	.data
	.globl stale_obj
	.type stale_obj,@object
stale_obj:
	.quad 0
	.size stale_obj, 8
	.section .note.GNU-stack,"",@progbits
