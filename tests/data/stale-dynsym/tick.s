# libtick.so: an empty function libspin.so calls through its PLT.
	.text
	.globl tick
	.type tick,@function
tick:
	ret
	.size tick, 1
	.section .note.GNU-stack,"",@progbits
