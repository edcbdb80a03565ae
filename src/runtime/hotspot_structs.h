/* HotSpot's own description of its data structures (vmStructs), read
 * from a running JVM's memory: libjvm.so exports gHotSpotVMStructs and
 * gHotSpotVMTypes, pointers to arrays of entries (type name, field name,
 * offset or a static's address; type name, size) ended by an entry
 * without a type name, and the layout of those entries in exported
 * gHotSpotVMStructEntry*Offset / gHotSpotVMTypeEntry*Offset and
 * *ArrayStride variables. The serviceability agent and the OpenTelemetry
 * profiler name Java frames from the same tables.
 *
 * Everything here is read through a caller's reader from memory the
 * profiled process controls: counts, strides, offsets and strings are
 * bounded, and a table that lacks a field the naming needs, or holds
 * one out of bounds, is refused with the reason. */
#ifndef SCORCH_RUNTIME_HOTSPOT_STRUCTS_H
#define SCORCH_RUNTIME_HOTSPOT_STRUCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read len bytes at addr of the process into buf; false when unreadable. */
typedef bool (*hotspot_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

/* The exported variables' values, as read from libjvm.so's data. */
struct hotspot_exports {
	uint64_t structs;                 /* gHotSpotVMStructs: the first entry */
	uint64_t s_type_name, s_field_name, s_is_static, s_offset, s_address, s_stride;
	uint64_t types;                   /* gHotSpotVMTypes */
	uint64_t t_type_name, t_size, t_stride;
};

/* What naming an interpreted frame needs: field offsets (bytes from the
 * object's start), sizes, and the address of one static. */
struct hotspot_layout {
	uint32_t method_const_method;     /* Method::_constMethod */
	uint32_t const_method_constants;  /* ConstMethod::_constants */
	uint32_t const_method_name_index, const_method_signature_index, const_method_idnum; /* u2 each */
	uint32_t pool_holder, pool_length, pool_tags; /* ConstantPool::_pool_holder, _length (int), _tags */
	uint32_t pool_size;               /* sizeof(ConstantPool): its slots follow */
	uint32_t klass_name;              /* Klass::_name */
	uint32_t klass_methods;           /* InstanceKlass::_methods (Array<Method*>*) */
	uint32_t array_length;            /* Array<T>::_length (int) */
	uint32_t array_u1_data, array_ptr_data; /* Array<u1>::_data, Array<Method*>::_data */
	uint32_t symbol_length, symbol_body;    /* Symbol::_length (u2), _body */
	uint64_t interpreter_code;        /* &AbstractInterpreter::_code (a StubQueue*) */
	uint32_t queue_buffer, queue_limit; /* StubQueue::_stub_buffer, _buffer_limit (int) */
};

enum {
	HOTSPOT_MAX_ENTRIES = 8192,  /* OpenJDK 17 has 788 fields and 768 types */
	HOTSPOT_MAX_STRIDE = 256,
	HOTSPOT_MAX_NAME = 96,       /* the longest type or field name read */
	HOTSPOT_MAX_OFFSET = 4096,   /* a field further than this into an object is refused */
};

/* Fill *out from the tables; false with the reason in why (a static
 * string) when a field is missing or out of bounds, or the tables
 * cannot be read. */
bool hotspot_structs_read(hotspot_read_fn read, void *arg, const struct hotspot_exports *ex,
			  struct hotspot_layout *out, const char **why);

#endif
