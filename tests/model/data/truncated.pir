{
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x"} : () -> builtin.tensor<4xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[false]} : (builtin.tensor<4xf32>) -> builtin.tens