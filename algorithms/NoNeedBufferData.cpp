// Generated from ../shared/data/no_need_buffer.tsv (tests/algorithms checks it is current).
// Regenerate: scripts in tests/algorithms/reference/embed_no_need_buffer.sh
#include <string_view>
namespace rx {
extern const std::string_view kNoNeedBufferTsv;
const std::string_view kNoNeedBufferTsv = R"tsv(# no_need_buffer table for PaddlePaddle PIR grad ops (pd_op dialect).
# Provenance: extracted from PaddlePaddle/Paddle op YAMLs (Apache-2.0). Base = paddle/phi/ops/yaml/{backward,fused_backward,sparse_backward,inconsistent/static_backward}.yaml
#   at commit 1eb6d50e49784e55587c73c088ebd9c83f887ad0 (2024-10-24, via fork tc20042008/Paddle branch abstract_pass), machine-parsed;
#   then hand-patched to PaddlePaddle/Paddle commit 0ab6998c22c7f4ea942b2437353f34c257e868d6 (post-Dec-2024 develop; read via code index): added embedding_with_scaled_gradient_grad,
#   flatten_grad, reshape_grad, squeeze_grad, unsqueeze_grad (backward.yaml, now take x instead of xshape), legacy_reshape_grad, lod_reset_grad, lookup_table_grad
#   (static_backward.yaml); reshape_double_grad moved to backward.yaml. These YAMLs are exactly the ones paddle/fluid/pir/dialect/CMakeLists.txt feeds to op_gen.py.
# Columns (tab-separated):
#   op                       PIR op name (inplace variants "<op>_" generated from `inplace:` share the same entry)
#   args_in_order            the op's TENSOR inputs in yaml `args` order = PIR operand order (attributes removed). Suffix [] = Tensor[] (a vec[...] operand,
#                            usually fed by builtin.combine); suffix ? = optional (operand may be a null Value). Mutable attributes (IntArray/Scalar turned
#                            into inputs, e.g. sum_grad axis) are appended AFTER these and are never no_need_buffer.
#   no_need_buffer           names from the yaml `no_need_buffer:` key (yaml order)
#   no_need_buffer_operand_idx  0-based operand indices of those names (what OpYamlInfoParser::NoNeedBufferIds() returns)
#   source_yaml              file the entry came from
#   note                     invoke/composite flag from yaml (informational)
# Version note: programs from Paddle <= 3.0 (G1/G2 text) use reshape/squeeze/unsqueeze/flatten with a 2nd 'xshape' output (dims 0xD0xD1..., or <<NULL TYPE>>)
#   and *_grad(xshape, out_grad) with no no_need_buffer; xshape carries metadata only.
# Runtime rule (paddle/fluid/pybind/pir.cc, Operation.is_no_need_buffer): OpYamlInfoInterface -> OpYamlInfoParser(op_info).NoNeedBufferIds(); returns true iff
#   value == op.operand_source(i) for some such i. Ops without OpYamlInfoInterface (builtin.*, cf.*) -> false.
op	args_in_order	no_need_buffer	no_need_buffer_operand_idx	source_yaml	note
pd_op.add_grad	x,y,out_grad	x,y	0,1	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	composite
pd_op.argsort_grad	indices,x,out_grad	x	1	paddle/phi/ops/yaml/backward.yaml	
pd_op.batch_fc_grad	input,w,bias,out_grad	bias	2	paddle/phi/ops/yaml/backward.yaml	
pd_op.bicubic_interp_grad	x,out_size?,size_tensor[]?,scale_tensor?,output_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.bilinear_interp_grad	x,out_size?,size_tensor[]?,scale_tensor?,output_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.broadcast_tensors_grad	input[],out_grad[]	input	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.c_embedding_grad	weight,x,out_grad	weight	0	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	
pd_op.cast_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	invoke
pd_op.concat_grad	x[],out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.cvm_grad	x,cvm,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.diag_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.diagonal_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.embedding_grad	x,weight,out_grad	weight	1	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	
pd_op.embedding_with_scaled_gradient_grad	x,weight,out_grad	weight	1	paddle/phi/ops/yaml/backward.yaml	
pd_op.expand_as_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.expand_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.fft_r2c_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.flatten_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.fold_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.fused_attention_grad	out_grad,x,qkv_weight,qkv_bias?,qkv_bias_out?,src_mask?,src_mask_out?,out_linear_weight,out_linear_bias?,ln_scale?,ln_bias?,ln_scale_2?,ln_bias_2?,ln_out?,ln_mean?,ln_var?,ln_mean_2?,ln_var_2?,bias_dropout_residual_out?,qkv_out,transpose_out_2,qk_out,qktv_out,softmax_out,attn_dropout_mask_out,attn_dropout_out,fmha_out,out_linear_out,dropout_mask_out	qkv_bias_out,qkv_out,qk_out,qktv_out,out_linear_out,src_mask	4,19,21,22,27,5	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	
pd_op.fused_elemwise_add_activation_grad	x?,y,out,intermediate_out?,out_grad	x,y	0,1	paddle/phi/ops/yaml/fused_backward.yaml	
pd_op.gather_grad	x,index,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.gather_nd_grad	x,index,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.gru_grad	input,h0?,weight,bias?,batch_gate,batch_reset_hidden_prev,batch_hidden,hidden,hidden_grad	input,bias	0,3	paddle/phi/ops/yaml/backward.yaml	
pd_op.gru_unit_grad	input,hidden_prev,weight,bias?,gate,reset_hidden_prev,hidden_grad	bias	3	paddle/phi/ops/yaml/backward.yaml	
pd_op.index_sample_grad	x,index,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.index_select_grad	x,index,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.index_select_strided_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.kldiv_loss_grad	x,label,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.layer_norm_grad	x,scale?,bias?,mean,variance,out_grad	bias	2	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.legacy_reshape_grad	x,out_grad	x	0	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	
pd_op.linear_interp_grad	x,out_size?,size_tensor[]?,scale_tensor?,output_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.lod_reset_grad	x,out_grad	x	0	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	
pd_op.lookup_table_grad	w,ids,out_grad	w	0	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	
pd_op.masked_select_grad	x,mask,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.mean_all_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.mean_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.nearest_interp_grad	x,out_size?,size_tensor[]?,scale_tensor?,output_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.pad3d_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.pad_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.pool2d_double_grad	x,grad_x_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.rank_attention_grad	x,rank_offset,rank_param,input_help,ins_rank,out_grad	x,rank_offset,rank_param	0,1,2	paddle/phi/ops/yaml/backward.yaml	
pd_op.reshape_double_grad	grad_out,grad_x_grad	grad_out	0	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.reshape_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.roi_align_grad	x,boxes,boxes_num?,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.roll_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.scatter_grad	index,updates,out_grad	updates	1	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.scatter_nd_add_grad	index,updates,out_grad	updates	1	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.sequence_expand_grad	x,y,out_grad	x,y	0,1	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	
pd_op.sequence_pool_grad	x,max_index?,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.sequence_softmax_grad	x,out,out_grad	x	0	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	
pd_op.slice_grad	input,out_grad	input	0	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.squeeze_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.stack_grad	x[],out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.strided_slice_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.subtract_double_grad	y,grad_out,grad_x_grad?,grad_y_grad?	y,grad_out	0,1	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	composite
pd_op.subtract_grad	x,y,out_grad	x,y	0,1	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	composite
pd_op.sum_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	composite
pd_op.tile_grad	x,out_grad	x	0	paddle/phi/ops/yaml/inconsistent/static_backward.yaml	composite
pd_op.trace_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.trilinear_interp_grad	x,out_size?,size_tensor[]?,scale_tensor?,output_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.unfold_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.unsqueeze_grad	x,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.warpctc_grad	logits,logits_length?,warpctcgrad,loss_grad	logits	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.warprnnt_grad	input,input_lengths,warprnntgrad,loss_grad	input	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.weight_only_linear_grad	x,weight,bias?,weight_scale,out_grad	x	0	paddle/phi/ops/yaml/backward.yaml	
pd_op.where_grad	condition,x,y,out_grad	x,y	1,2	paddle/phi/ops/yaml/backward.yaml	
)tsv";
}  // namespace rx
