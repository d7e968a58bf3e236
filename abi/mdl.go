package abi

// Model is the group of the aclmdl functions (ABI section 13.4).
const Model Group = "model"

// The aclmdl functions of acl/acl_mdl.h with their native signatures. A
// model id is a uint32_t; descriptions and datasets are handles; a data
// buffer is the guest's own aclDataBuffer (the C SDK's functions of
// acl_base.h make it: {data, size}, 16 bytes wide, 8 in acl32), which a
// dataset refers to by its guest address; a size_t result is an i32 (a wasm32 size_t). A function that
// natively returns a const char * (aclmdlGetInputNameByIndex) takes a
// buffer and its size on the wire and returns the name's length; the C
// SDK wraps it into the native signature.
var mdlFuncs = []Func{
	{Name: "aclmdlLoadFromFile", Group: Model, Params: []Param{in("modelPath", CString), out("modelId", Uint)},
		Doc: "Loads the model the embedder approved under the name modelPath (no file the guest names is opened) and writes its id."},
	{Name: "aclmdlLoadFromFileWithMem", Group: Model, Params: []Param{in("modelPath", CString), out("modelId", Uint), addr("workPtr"), size("workSize"), addr("weightPtr"), size("weightSize")},
		Doc: "aclmdlLoadFromFile with the guest's work and weight memory, each NULL or inside one live device allocation of the session."},
	{Name: "aclmdlQuerySize", Group: Model, Params: []Param{in("fileName", CString), outOf("workSize", Size), outOf("weightSize", Size)},
		Doc: "Writes the device memory a load of an approved model counts against the quota: natively the runtime's work and weight sizes; on the simulator no work memory and the weights' size."},
	{Name: "aclmdlLoadFromMem", Group: Model, Params: []Param{in("model", Bytes).len("modelSize").native("const void *"), size("modelSize"), out("modelId", Uint)},
		Doc: "Loads a model from guest memory: 207000 unless the policy allows guest models (never on the native backend)."},
	{Name: "aclmdlLoadFromMemWithMem", Group: Model, Params: []Param{in("model", Bytes).len("modelSize").native("const void *"), size("modelSize"), out("modelId", Uint), addr("workPtr"), size("workSize"), addr("weightPtr"), size("weightSize")},
		Doc: "aclmdlLoadFromMem with the guest's work and weight memory."},
	{Name: "aclmdlUnload", Group: Model, Params: []Param{u32("modelId")},
		Doc: "Unloads a model; executions already queued finish first."},
	{Name: "aclmdlCreateDesc", Group: Model, Result: ModelDescHandle, Params: []Param{},
		Doc: "Creates an empty model description."},
	{Name: "aclmdlDestroyDesc", Group: Model, Params: []Param{handle("modelDesc", ModelDescHandle)},
		Doc: "Destroys a model description."},
	{Name: "aclmdlGetDesc", Group: Model, Params: []Param{handle("modelDesc", ModelDescHandle), u32("modelId")},
		Doc: "Fills a description with the inputs and outputs of a loaded model."},
	{Name: "aclmdlGetNumInputs", Group: Model, Result: Uint, Params: []Param{handle("modelDesc", ModelDescHandle)},
		Doc: "Returns the number of inputs (0 for NULL)."},
	{Name: "aclmdlGetNumOutputs", Group: Model, Result: Uint, Params: []Param{handle("modelDesc", ModelDescHandle)},
		Doc: "Returns the number of outputs (0 for NULL)."},
	{Name: "aclmdlGetInputSizeByIndex", Group: Model, Result: Uint, Params: []Param{handle("modelDesc", ModelDescHandle), size("index")},
		Doc: "Returns the bytes of input index (0 for NULL or an index past the inputs)."},
	{Name: "aclmdlGetOutputSizeByIndex", Group: Model, Result: Uint, Params: []Param{handle("modelDesc", ModelDescHandle), size("index")},
		Doc: "Returns the bytes of output index (0 for NULL or an index past the outputs)."},
	{Name: "aclmdlGetInputDims", Group: Model, Params: []Param{handle("modelDesc", ModelDescHandle).native("const aclmdlDesc *"), size("index"), out("dims", IODims)},
		Doc: "Writes the name and dims of input index as an aclmdlIODims (1160 bytes in both profiles)."},
	{Name: "aclmdlGetOutputDims", Group: Model, Params: []Param{handle("modelDesc", ModelDescHandle).native("const aclmdlDesc *"), size("index"), out("dims", IODims)},
		Doc: "Writes the name and dims of output index as an aclmdlIODims."},
	{Name: "aclmdlGetInputNameByIndex", Group: Model, Result: Uint, Params: []Param{handle("modelDesc", ModelDescHandle).native("const aclmdlDesc *"), size("index"), out("name", Bytes).len("nameLen"), size("nameLen")},
		Doc: "Returns the length of input index's name (0: none) and writes it with its NUL into name, nameLen bytes at most; the C SDK returns it as the native const char *."},
	{Name: "aclmdlGetOutputNameByIndex", Group: Model, Result: Uint, Params: []Param{handle("modelDesc", ModelDescHandle).native("const aclmdlDesc *"), size("index"), out("name", Bytes).len("nameLen"), size("nameLen")},
		Doc: "aclmdlGetInputNameByIndex for an output."},
	{Name: "aclmdlGetInputDataType", Group: Model, Result: Int, Params: []Param{handle("modelDesc", ModelDescHandle).native("const aclmdlDesc *"), size("index")},
		Doc: "Returns the aclDataType of input index (ACL_DT_UNDEFINED, -1, for NULL or an index past the inputs)."},
	{Name: "aclmdlGetOutputDataType", Group: Model, Result: Int, Params: []Param{handle("modelDesc", ModelDescHandle).native("const aclmdlDesc *"), size("index")},
		Doc: "Returns the aclDataType of output index (ACL_DT_UNDEFINED for NULL or a bad index)."},
	{Name: "aclmdlGetInputFormat", Group: Model, Result: Int, Params: []Param{handle("modelDesc", ModelDescHandle).native("const aclmdlDesc *"), size("index")},
		Doc: "Returns the aclFormat of input index (ACL_FORMAT_UNDEFINED, -1, for NULL or a bad index)."},
	{Name: "aclmdlGetOutputFormat", Group: Model, Result: Int, Params: []Param{handle("modelDesc", ModelDescHandle).native("const aclmdlDesc *"), size("index")},
		Doc: "Returns the aclFormat of output index (ACL_FORMAT_UNDEFINED for NULL or a bad index)."},
	{Name: "aclmdlGetInputIndexByName", Group: Model, Params: []Param{handle("modelDesc", ModelDescHandle).native("const aclmdlDesc *"), in("name", CString), outOf("index", Size)},
		Doc: "Writes the index of the input of that name."},
	{Name: "aclmdlCreateDataset", Group: Model, Result: DatasetHandle, Params: []Param{},
		Doc: "Creates an empty dataset."},
	{Name: "aclmdlDestroyDataset", Group: Model, Params: []Param{handle("dataset", DatasetHandle).native("const aclmdlDataset *")},
		Doc: "Destroys a dataset; its data buffers are the caller's to destroy, as natively."},
	{Name: "aclmdlAddDatasetBuffer", Group: Model, Params: []Param{handle("dataset", DatasetHandle), in("dataBuffer", DataBuffer).native("aclDataBuffer *")},
		Doc: "Appends a data buffer (the guest's aclDataBuffer, read when the dataset is executed) to a dataset."},
	{Name: "aclmdlGetDatasetNumBuffers", Group: Model, Result: Uint, Params: []Param{handle("dataset", DatasetHandle).native("const aclmdlDataset *")},
		Doc: "Returns the number of buffers of a dataset (0 for NULL)."},
	{Name: "aclmdlGetDatasetBuffer", Group: Model, Result: DataBuffer, Params: []Param{handle("dataset", DatasetHandle).native("const aclmdlDataset *"), size("index")},
		Doc: "Returns buffer index of a dataset (NULL for NULL or a bad index)."},
	{Name: "aclmdlExecute", Group: Model, Params: []Param{u32("modelId"), handle("input", DatasetHandle).native("const aclmdlDataset *"), handle("output", DatasetHandle)},
		Doc: "Runs a model on the current context's default stream and waits for it."},
	{Name: "aclmdlExecuteAsync", Group: Model, Params: []Param{u32("modelId"), handle("input", DatasetHandle).native("const aclmdlDataset *"), handle("output", DatasetHandle), handle("stream", StreamHandle)},
		Doc: "Queues a model's execution on a stream, every buffer checked against the model's sizes and the session's allocations now and when it runs."},
}
