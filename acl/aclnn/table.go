package aclnn

// The operator table in the order the SDKs and docs list it: the
// arithmetic families first, then the reductions and matrix products,
// then the in-place operators.
func init() {
	Ops = append(Ops,
		opAdd, opAdds, opSub, opSubs, opMul, opMuls, opDiv,
		opCast, opAbs, opNeg, opExp, opSqrt, opRelu, opSigmoid,
		opSoftmax, opReduceSum, opMm, opMatmul,
		opInplaceCopy, opInplaceFillScalar, opInplaceZero,
	)
}
